#include "opconform/generators/check_pairs.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "opconform/generators/op_generators.h"
#include "opconform/generators/checks.h"
#include "check_generators.h"

// Each op's breakers and exclusions live in its own generator file (OpGenerators, in
// check_generators.h); this file pairs its checks.

namespace opconform::generators {

std::vector<InfeasiblePair> infeasible_pairs(Op op) {
  const OpGenerators& hooks = op_generators(op);
  std::vector<InfeasiblePair> out;
  for (const Exclusion& e : hooks.exclusions)
    out.push_back({{hooks.checks[e.first].id, hooks.checks[e.second].id}, e.why});
  return out;
}

bool has_breaker(Op op, std::string_view check) {
  const OpGenerators& hooks = op_generators(op);
  for (std::size_t i = 0; i < hooks.checks.size(); ++i)
    if (hooks.checks[i].id == check) return i < hooks.breakers.size() && hooks.breakers[i] != nullptr;
  return false;
}

std::vector<CheckPair> feasible_pairs(Op op) {
  const OpGenerators& hooks = op_generators(op);
  const std::span<const Check> checks = hooks.checks;
  std::vector<CheckPair> out;
  for (std::size_t a = 0; a < checks.size(); ++a)
    for (std::size_t b = a + 1; b < checks.size(); ++b) {
      const bool skip = std::any_of(hooks.exclusions.begin(), hooks.exclusions.end(),
                                    [&](const Exclusion& e) { return e.first == a && e.second == b; });
      if (!skip) out.push_back({checks[a].id, checks[b].id});
    }
  return out;
}

rc::Gen<GeneratedCase> pair_case(Op op, CheckPair pair) {
  return rc::gen::exec([op, pair] {
    const BreakFn breaker =
        has_breaker(op, pair.first) ? op_generators(op).breakers[check_index(op, pair.first)] : nullptr;
    if (breaker == nullptr) throw rc::GenerationFailure("no breaker for " + std::string(pair.first));
    GeneratedCase g = *invalid_case(op, pair.second);
    if (!breaker(g.c)) throw rc::GenerationFailure("no room to break " + std::string(pair.first));
    g.check = std::string(pair.first);
    g.also_breaks = std::string(pair.second);
    return g;
  });
}

rc::Gen<GeneratedCase> any_pair_case(Op op) {
  return rc::gen::mapcat(rc::gen::elementOf(feasible_pairs(op)), [op](CheckPair p) { return pair_case(op, p); });
}

std::optional<rc::Shrinkable<GeneratedCase>> find_pair_case(Op op, CheckPair pair, rc::Random& random, int size,
                                                            int attempts,
                                                            const std::function<bool(const GeneratedCase&)>& hit,
                                                            const std::function<bool()>& stop) {
  const rc::Gen<GeneratedCase> gen = pair_case(op, pair);
  for (int attempt = 0; attempt < attempts && !(stop && stop()); ++attempt) {
    std::optional<rc::Shrinkable<GeneratedCase>> drawn;
    std::optional<GeneratedCase> g;
    try {
      drawn = gen(random.split(), size);
      g = drawn->value();
    } catch (const std::exception&) {
      continue;  // no room for the earlier check on this drawing
    }
    if (hit(*g)) return drawn;
  }
  return std::nullopt;
}

std::uint64_t pair_sweep_seed() {
  const char* seed = std::getenv("OPCONFORM_PAIR_SEED");
  return seed && *seed ? std::strtoull(seed, nullptr, 10) : 1;
}

}  // namespace opconform::generators
