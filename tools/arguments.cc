#include "arguments.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace opconform::tools {

namespace {

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

bool digits_only(const std::string& text, bool minus_allowed) {
  std::size_t i = minus_allowed && !text.empty() && text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

std::string number_text(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (!digits_only(text, lo < 0) || error != std::errc() || end != text.data() + text.size() || value < lo ||
            value > hi)
          return in_quotes(text) + " is not a whole number from " + range;
        return "";
      },
      "INT in [" + range + "]");
}

CLI::Validator unsigned_64() {
  const std::string range = "0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max());
  return CLI::Validator(
      [range](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (!digits_only(text, false) || error != std::errc() || end != text.data() + text.size())
          return in_quotes(text) + " is not a whole number from " + range;
        return "";
      },
      "UINT64");
}

CLI::Validator decimal_number(double lo, double hi, bool lo_allowed) {
  const std::string range = lo_allowed ? "from " + number_text(lo) + " to " + number_text(hi)
                                       : "greater than " + number_text(lo) + ", at most " + number_text(hi);
  return CLI::Validator(
      [lo, hi, lo_allowed, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = text.empty() ? std::nan("") : std::strtod(text.c_str(), &end);
        const bool parsed = !text.empty() && end == text.c_str() + text.size() && std::isfinite(value) &&
                            !std::isspace(static_cast<unsigned char>(text[0]));
        if (!parsed || value > hi || value < lo || (!lo_allowed && value == lo))
          return in_quotes(text) + " is not a number " + range;
        return "";
      },
      "NUMBER " + range);
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "an empty value (an unset variable?): name one, or leave the option out" : "";
      },
      "NOT EMPTY");
}

void once_each(CLI::App* cmd) {
  std::vector<CLI::Option*> single;
  for (CLI::Option* option : cmd->get_options())
    if (option->get_expected_max() == 1 && option->get_type_size_max() == 1) single.push_back(option);
  for (CLI::Option* option : single) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd->parse_complete_callback([single] {
    for (const CLI::Option* option : single) {
      if (option->results().size() < 2) continue;
      std::string given;
      for (const std::string& value : option->results()) given += (given.empty() ? "" : ", ") + in_quotes(value);
      throw CLI::ValidationError(option->get_name(), "given more than once: " + given);
    }
  });
}

int exit_code_of_usage_error(const CLI::App& app, const CLI::ParseError& e) {
  const int code = app.exit(e);
  return code == 0 ? 0 : 2;
}

}  // namespace opconform::tools
