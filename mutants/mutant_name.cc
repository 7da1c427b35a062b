// The mutant's name (OPCONFORM_MUTANT_NAME, one compile per mutant), for mutant_plugin.cc's
// manifest; the plug-in itself is compiled once per op.
namespace opconform::mutants {
extern const char* const kMutantName;
const char* const kMutantName = OPCONFORM_MUTANT_NAME;
}  // namespace opconform::mutants
