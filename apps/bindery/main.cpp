// SPDX-License-Identifier: MIT
// bindery — the command-line tool. Subcommands live in apps/bindery/cmd_*.cpp.
//
// Every error is one line `bindery: error [Kind]: message` on stderr (print_error: control
// characters escaped as a last defence, whatever a message holds). Command-line usage errors are
// worded here, not by CLI11: an unknown subcommand or option is named with the nearest valid one;
// an option value that is not a number of the option's type names the value typed. Standard
// output is flushed and checked before exit: output that could not be written is an Io error.
#include "command.hpp"
#include "options.hpp"

#include <bindery/core/error.hpp>
#include <bindery/core/version.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>

namespace bindery::cli {
std::vector<CommandInfo>& registry() {
  static std::vector<CommandInfo> commands;
  return commands;
}

void print_error(std::string_view kind, std::string_view message) {
  std::fflush(stdout);  // what the command printed comes before its error line
  const std::string line = fmt::format("bindery: error [{}]: {}\n", kind, escape_controls(message));
  std::fwrite(line.data(), 1, line.size(), stderr);
}

namespace {

/// " (did you mean 'X'?)" for the candidate nearest to `typed`, when it is near enough.
std::string nearest(std::string_view typed, const std::vector<std::string>& candidates) {
  return did_you_mean(typed, candidates);
}

std::vector<std::string> option_names(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* o : sub.get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    for (const std::string& n : o->get_snames()) names.push_back("-" + n);
  }
  return names;
}

/// The arguments after the subcommand's name (empty when there is none).
std::vector<std::string> args_of(int argc, char** argv, const CLI::App* sub) {
  std::vector<std::string> args;
  bool in = sub == nullptr;
  for (int i = 1; i < argc; ++i) {
    if (in) args.emplace_back(argv[i]);
    else if (argv[i] == sub->get_name()) in = true;
  }
  return args;
}

/// Whether `value` passes every validator of `option` (check_number_options()'s rules, its
/// own checks).
bool passes_validators(CLI::Option& option, std::string value) {
  for (int i = 0;; ++i) {
    CLI::Validator* validator = nullptr;
    try {
      validator = option.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return true;
    }
    if (!(*validator)(value).empty()) return false;
  }
}

/// Whether `what` (CLI11's message) names the option `name` as a whole word: "--frames" is not
/// named by "--frames-in-flight".
bool names_option(std::string_view what, std::string_view name) {
  auto part_of_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  };
  for (size_t at = what.find(name); at != std::string_view::npos; at = what.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at == 0 || !part_of_name(what[at - 1])) && (end == what.size() || !part_of_name(what[end])))
      return true;
  }
  return false;
}

/// The option of `sub` that `what` (CLI11's message) names and the value typed after it; of
/// several occurrences (`--objects 5 --objects 010`) the first whose value a validator refuses,
/// else the last.
std::optional<std::pair<std::string, std::string>> option_and_value(CLI::App& sub,
                                                                    const std::string& what,
                                                                    const std::vector<std::string>& args) {
  for (const std::string& name : option_names(sub)) {
    if (!names_option(what, name)) continue;
    std::vector<std::string> values;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == name && i + 1 < args.size()) values.push_back(args[i + 1]);
      else if (args[i].rfind(name + "=", 0) == 0) values.push_back(args[i].substr(name.size() + 1));
    }
    if (values.empty()) continue;
    CLI::Option* option = sub.get_option_no_throw(name);
    for (const std::string& value : values)
      if (option && !passes_validators(*option, value)) return std::pair{name, value};
    return std::pair{name, values.back()};
  }
  return std::nullopt;
}

/// Whether a number's text is hexadecimal (0x or 0X after an optional sign).
bool hexadecimal(const std::string& value) {
  const size_t at = !value.empty() && (value[0] == '+' || value[0] == '-') ? 1 : 0;
  return value.size() > at + 1 && value[at] == '0' && (value[at + 1] == 'x' || value[at + 1] == 'X');
}

// The rules check_number_options() gives a number option's text beyond CLI11's conversion,
// worded whole (usage_message() prints them after the option and the value).
constexpr const char* kLeadingZero =
    "a whole number is written in decimal without a leading zero (010 would be read as octal 8)";
constexpr const char* kNotDecimal =
    "a number is written in decimal (no 0x: hexadecimal numbers are not taken)";
constexpr const char* kOutOfDoubleRange =
    "the number is out of the range of a double (about 2.2e-308 to 1.8e308 in size; it would be "
    "read as 0 or infinity)";

/// The first `--flag=VALUE` among `args` whose option is a flag of `sub`, worded as an error
/// (a flag takes no value: CLI11 refuses most values once refuse_flag_values() ran, but still
/// takes "=true", the flag's own).
std::optional<std::string> flag_given_a_value(const CLI::App& sub,
                                              const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos) continue;
    const CLI::Option* opt = sub.get_option_no_throw(a.substr(0, eq));
    if (opt && opt->get_expected_max() == 0)
      return fmt::format("{} is a flag and takes no value ('{}' given)", a.substr(0, eq),
                         escape_for_message(a.substr(eq + 1)));
  }
  return std::nullopt;
}

/// The first option of `sub` that takes a value but is followed by another option's name
/// (`--png --quiet`: CLI11 takes "--quiet" as the path and runs), worded as an error. A value
/// given with '=' (`--png=--quiet`) is the user's choice and stands.
std::optional<std::string> option_given_an_option(const CLI::App& sub,
                                                  const std::vector<std::string>& args) {
  const std::vector<std::string> known = option_names(sub);
  for (size_t i = 0; i + 1 < args.size() && args[i] != "--"; ++i) {
    if (args[i].empty() || args[i][0] != '-') continue;
    const CLI::Option* opt = sub.get_option_no_throw(args[i]);
    const std::string next = args[i + 1].substr(0, args[i + 1].find('='));
    if (!opt || opt->get_expected_max() == 0 ||
        std::find(known.begin(), known.end(), next) == known.end())
      continue;
    return fmt::format("{} takes a value, and the argument after it is the option {} (give {} its "
                       "value; a value that begins with '-' as {}=VALUE)",
                       args[i], escape_for_message(next), args[i], args[i]);
  }
  return std::nullopt;
}

/// The arguments before the subcommand's name (all of them when there is none).
std::vector<std::string> args_before(int argc, char** argv, const CLI::App* sub) {
  std::vector<std::string> args;
  for (int i = 1; i < argc && !(sub && argv[i] == sub->get_name()); ++i) args.emplace_back(argv[i]);
  return args;
}

/// What is wrong with the options before the subcommand (bindery's own: --help, --version), if
/// anything: an option bindery does not take, a value given to its flags, or '--'.
std::optional<std::string> leading_option_message(const CLI::App& app, const CLI::App* sub,
                                                  int argc, char** argv) {
  const std::vector<std::string> known = option_names(app);
  for (const std::string& a : args_before(argc, argv, sub)) {
    if (a == "--")
      return std::string("'--' comes before the subcommand; the subcommand's name goes first "
                         "(bindery SUBCOMMAND [options])");
    if (a.size() < 2 || a[0] != '-') {
      if (!sub) break;  // a misspelt subcommand (`bindery rendr --quiet`): usage_message() names it
      continue;
    }
    const std::string name = a.substr(0, a.find('='));
    if (std::find(known.begin(), known.end(), name) == known.end())
      return fmt::format("option '{}' is not bindery's (bindery takes --help and --version before "
                         "a subcommand; a subcommand's options go after its name)",
                         escape_for_message(name));
    if (auto message = flag_given_a_value(app, {a})) return message;
  }
  return std::nullopt;
}

/// An argument `sub` does not take (CLI11's ExtrasError): an unknown option, named with the
/// nearest known one, or an argument after the options (after '--' too); nullopt when none is
/// found in `args`.
std::optional<std::string> extras_message(CLI::App& sub, const std::vector<std::string>& args) {
  const std::vector<std::string> known = option_names(sub);
  for (const std::string& a : args) {
    if (a == "--") break;  // what follows is an argument, not an option (below)
    if (a.size() < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9')) continue;
    const std::string name = a.substr(0, a.find('='));
    if (name == "--")
      return fmt::format("'{}' is not an option (a name must follow '--')", escape_for_message(a));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return fmt::format("option '{}' is not known to '{}'{}", escape_for_message(name),
                       sub.get_name(), nearest(name, known));
  }
  for (const std::string& a : sub.remaining())
    return fmt::format("unexpected argument '{}'", escape_for_message(a));
  const auto end_of_options = std::find(args.begin(), args.end(), "--");
  if (end_of_options != args.end() && end_of_options + 1 != args.end())
    return fmt::format("unexpected argument '{}' after '--' (which ends the options)",
                       escape_for_message(*(end_of_options + 1)));
  return std::nullopt;
}

/// A value CLI11 could not convert or a validator refused (`what` is CLI11's message), worded
/// with the option and the value as typed: the rule it broke, the range the option's help
/// states, or the nearest of the option's names; nullopt when `what` names no option of `sub`.
std::optional<std::string> bad_value_message(const CLI::ParseError& e, CLI::App& sub,
                                             const std::string& what,
                                             const std::vector<std::string>& args) {
  const auto ov = option_and_value(sub, what, args);
  if (!ov) return std::nullopt;
  const auto& [option, value] = *ov;
  const std::string quoted = escape_for_message(value);
  if (value.empty()) return fmt::format("{} '': the value is empty", option);
  for (const char* rule : {kLeadingZero, kNotDecimal, kOutOfDoubleRange})
    if (what.find(rule) != std::string::npos) return fmt::format("{} '{}': {}", option, quoted, rule);
  const CLI::Option* opt = sub.get_option_no_throw(option);
  const std::string type = opt ? opt->get_type_name() : std::string();
  const bool integer = type.find("INT") != std::string::npos;
  const bool decimal = type.find("FLOAT") != std::string::npos;
  if (integer && value[0] == '-' && type.find("UINT") != std::string::npos)
    return fmt::format("{} '{}': the value must not be negative", option, quoted);
  if (integer || decimal) {
    // The range the option's help states ("1..100", "0..1"), where it states one.
    std::smatch range;
    const std::string help = opt->get_description();
    const bool stated =
        std::regex_search(help, range, std::regex(R"(\b\d+(\.\d+)?\.\.\d+(\.\d+)?\b)"));
    return fmt::format("{} '{}' is not a {}{}", option, quoted, integer ? "whole number" : "number",
                       stated ? " in " + range.str() : std::string());
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e))
    return fmt::format("{} '{}' is not a value of the option's type ({})", option, quoted, type);
  // CLI::IsMember's words end in the set: "VALUE not in {a,b}".
  const size_t set = what.rfind(" not in {");
  if (set == std::string::npos || what.back() != '}')
    return fmt::format("{} '{}' is not one of the option's values", option, quoted);
  std::vector<std::string> values;
  const std::string inside = what.substr(set + 9, what.size() - set - 10);
  for (size_t start = 0; start <= inside.size();) {
    const size_t comma = std::min(inside.find(',', start), inside.size());
    values.push_back(inside.substr(start, comma - start));
    start = comma + 1;
  }
  return fmt::format("{} '{}' is not one of {}{}", option, quoted, what.substr(set + 8),
                     nearest(value, values));
}

/// Words a CLI11 parse error as bindery does; `sub` is the subcommand given (or null). The
/// stages: options before the subcommand, an option followed by another's name, no or an unknown
/// subcommand, then by CLI11's kind of error.
std::string usage_message(const CLI::ParseError& e, const CLI::App& app, CLI::App* sub,
                          int argc, char** argv) {
  std::vector<std::string> commands;
  for (const CLI::App* s : app.get_subcommands({})) commands.push_back(s->get_name());
  const std::vector<std::string> args = args_of(argc, argv, sub);
  if (auto message = leading_option_message(app, sub, argc, argv)) return *message;
  if (!sub) {
    for (const std::string& a : args) {
      if (a.empty() || a[0] == '-') continue;
      return fmt::format("'{}' is not a bindery subcommand{}; the subcommands are {}",
                         escape_for_message(a), nearest(a, commands), fmt::join(commands, ", "));
    }
    return fmt::format("a subcommand is required: {}", fmt::join(commands, ", "));
  }
  if (auto message = option_given_an_option(*sub, args)) return *message;
  if (dynamic_cast<const CLI::ExtrasError*>(&e))
    if (auto message = extras_message(*sub, args)) return *message;
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ConversionError*>(&e) || dynamic_cast<const CLI::ValidationError*>(&e))
    if (auto message = bad_value_message(e, *sub, what, args)) return *message;
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    for (const CLI::Option* o : sub->get_options())
      if (o->get_required() && o->count() == 0)
        return fmt::format("the argument {} is required", o->get_name(false, true));
    return "a required argument is missing";
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) &&
      what.find("was given a disallowed flag override") != std::string::npos)
    if (auto message = flag_given_a_value(*sub, args)) return *message;
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    for (const std::string& name : option_names(*sub))
      if (what.find(name + ":") != std::string::npos) {
        const auto times = std::count_if(args.begin(), args.end(), [&](const std::string& a) {
          return a == name || a.rfind(name + "=", 0) == 0;
        });
        if (times > 1) return fmt::format("option {} is given {} times; give it once", name, times);
        return fmt::format("option {} needs exactly one value", name);
      }
    return "an option is missing its value or has too many";
  }
  return what;
}

// A flag (--quiet, --raw-floor, --json, ...) takes no value: `--quiet=0` or `--raw-floor=banana` is
// refused (CLI11 would read 0, -1 and false as "off" and anything else as "on").
void refuse_flag_values(CLI::App& sub) {
  for (CLI::Option* o : sub.get_options())
    if (o->get_expected_max() == 0) o->disable_flag_override();
}

/// Integer options take decimal text that fits the type exactly: CLI11 alone would wrap a
/// negative number into an unsigned one (-1 -> 2^64-1), saturate an overflowing one and read a
/// leading zero as octal (010 -> 8). Number options with a fraction take decimal text whose value
/// a double holds (CLI11 alone reads 0x10 as 16 and 1e-400 as 0). No number option takes empty
/// text (CLI11 alone reads '' as 0).
void check_number_options(CLI::App& sub) {
  for (CLI::Option* o : sub.get_options()) {
    const std::string type = o->get_type_name();
    if (type.find("FLOAT") != std::string::npos || type.find("NUMBER") != std::string::npos) {
      o->check(not_empty());
      o->check(CLI::Validator(
          [](std::string& value) {
            if (hexadecimal(value)) return std::string(kNotDecimal);
            const size_t skip = !value.empty() && value[0] == '+' ? 1 : 0;
            double v = 0;
            const auto r = std::from_chars(value.data() + skip, value.data() + value.size(), v);
            return r.ec == std::errc::result_out_of_range ? std::string(kOutOfDoubleRange)
                                                          : std::string();
          },
          "", "a decimal number"));
    }
    if (type.find("INT") == std::string::npos) continue;
    const bool is_unsigned = type.find("UINT") != std::string::npos;
    o->check(CLI::Validator(
        [is_unsigned](std::string& value) {
          const char* first = value.data();
          const char* last = value.data() + value.size();
          const size_t digits = !value.empty() && value[0] == '-' ? 1 : 0;
          if (hexadecimal(value)) return std::string(kNotDecimal);
          if (value.size() > digits + 1 && value[digits] == '0') return std::string(kLeadingZero);
          std::from_chars_result r{};
          if (is_unsigned) {
            uint64_t v = 0;
            if (!value.empty() && value[0] == '-') return std::string("negative");
            r = std::from_chars(first, last, v);
          } else {
            int64_t v = 0;
            r = std::from_chars(first, last, v);
          }
          return r.ec == std::errc() && r.ptr == last && !value.empty() ? std::string()
                                                                        : std::string("range");
        },
        "", "a whole number"));
  }
}

/// Keeps descriptors 0-2 taken (on /dev/null) so that no file opened later lands on one; returns
/// whether stdout was open at start.
bool guard_standard_descriptors() {
  bool stdout_open = true;
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    if (fd == 1) stdout_open = false;
    const int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (n >= 0 && n != fd) {
      dup2(n, fd);
      close(n);
    }
  }
  return stdout_open;
}

/// `message` led by the subcommand's name ("render: ..."), as the command's own messages and
/// the parser's are, unless it already is or it is about standard output (finish()'s words).
std::string with_command(const std::string& message, const CLI::App* command) {
  if (!command) return message;
  const std::string lead = command->get_name() + ": ";
  if (message.rfind(lead, 0) == 0 || message.rfind("standard output", 0) == 0) return message;
  return lead + message;
}

/// Exit status `code` after checking that standard output reached its file.
int finish(int code, bool stdout_open) {
  errno = 0;
  if (!stdout_open) {
    print_error("Io", bindery::stdout_failure_message(EBADF));
    return 1;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    print_error("Io", bindery::stdout_failure_message(errno));
    return 1;
  }
  return code;
}

}  // namespace
}  // namespace bindery::cli

int main(int argc, char** argv) {
  using namespace bindery::cli;
  const bool stdout_open = guard_standard_descriptors();
  // A closed pipe (`bindery layout big.wgsl | head -c 1`) is an error of the write, EPIPE, that
  // write_stdout() and finish() report as the [Io] line, not a signal that ends bindery silently.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"bindery: per-draw data for WebGPU renderers that draw thousands of objects"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "bindery " BINDERY_VERSION_STRING);

  auto& commands = registry();
  std::sort(commands.begin(), commands.end(),
            [](const CommandInfo& a, const CommandInfo& b) { return a.name < b.name; });
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners.emplace_back(sub, c.setup(*sub));
    check_number_options(*sub);
    refuse_flag_values(*sub);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    // --help=X, -h=X, --version=X: CLI11 prints the text whatever X is; a flag takes no value.
    for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) {
      const std::string a = argv[i];
      const size_t eq = a.find('=');
      const std::string name = a.substr(0, eq);
      if (eq == std::string::npos || (name != "--help" && name != "-h" && name != "--version"))
        continue;
      print_error("InvalidArgument",
                  fmt::format("{} is a flag and takes no value ('{}' given) (see 'bindery --help')",
                              name, bindery::escape_for_message(a.substr(eq + 1))));
      return 2;
    }
    // --help, --version: CLI11's text through write_stdout(), so that a failed write says why.
    std::ostringstream text, errors;
    const int code = app.exit(e, text, errors);
    try {
      bindery::write_stdout(text.str());
    } catch (const bindery::Error& io) {
      print_error(bindery::to_string(io.kind()), io.what());
      return 1;
    }
    return finish(code, stdout_open);
  } catch (const CLI::ParseError& e) {
    // A command-line usage error: one line like every other error, exit 2.
    CLI::App* given = nullptr;
    for (CLI::App* sub : app.get_subcommands()) given = sub;
    std::string help = "bindery --help";
    if (given) help = "bindery " + given->get_name() + " --help";
    print_error("InvalidArgument",
                fmt::format("{}{} (see '{}')", given ? given->get_name() + ": " : "",
                            usage_message(e, app, given, argc, argv), help));
    return 2;
  }

  for (auto& [sub, run] : runners)
    if (sub->parsed()) {
      const std::vector<std::string> args = args_of(argc, argv, sub);
      std::optional<std::string> message = flag_given_a_value(*sub, args);
      if (!message) message = option_given_an_option(*sub, args);
      if (message) {
        print_error("InvalidArgument", fmt::format("{}: {} (see 'bindery {} --help')",
                                                   sub->get_name(), *message, sub->get_name()));
        return 2;
      }
    }

  const CLI::App* running = nullptr;
  try {
    for (auto& [sub, run] : runners) {
      if (!sub->parsed()) continue;
      running = sub;
      return finish(run(), stdout_open);
    }
  } catch (const bindery::Error& e) {
    print_error(bindery::to_string(e.kind()), with_command(e.what(), running));
    return 1;
  } catch (const std::exception& e) {
    // A fault bindery did not turn into a bindery::Error at a boundary: still one line with a kind.
    print_error("Internal", with_command(e.what(), running));
    return 1;
  }
  return 1;
}
