// SPDX-License-Identifier: MIT
// The CLI under hostile input (issue 18; ../shared/cases/hostile.md H6, H7, H8, H9, H10 and
// relatives), no device needed: every error is one line `bindery: error [Kind]: ...` with control
// characters escaped; includes stay in the shader's folder; usage errors name what was typed and
// the nearest valid name; lost standard output is an Io error. Inputs are written here, in a
// fresh folder per test.
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace bindery {
namespace {

namespace fs = std::filesystem;
using test::run_cli;

class HostileCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("bindery_hostile_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& rel, const std::string& text) {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  fs::path dir_;
};

/// The error line's kind, when `err` is exactly one line `bindery: error [Kind]: ...`.
std::string one_error_kind(const std::string& err) {
  if (test::count_lines(err) != 1 || err.rfind("bindery: error [", 0) != 0) return "not one line: " + err;
  for (char c : err.substr(0, err.size() - 1))
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "control character in: " + err;
  return err.substr(16, err.find(']') - 16);
}

TEST_F(HostileCli, H6PlanBindingNameWithControlCharactersIsOneEscapedLine) {
  const std::string plan = write(
      "plan/H6.json",
      "{\"bindings\": [{\"name\": \"camera\", \"kind\": \"uniform\", \"size\": 64, \"frequency\": "
      "\"frame\"}, {\"name\": \"bad\\n\\u001b[31mname\", \"kind\": \"uniform\", \"size\": 16, "
      "\"frequency\": \"object\"}], \"stats\": {\"objects\": 4, \"materials\": 1, \"passes\": 1}}");
  const test::CliResult r = run_cli("plan " + plan);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(one_error_kind(r.err), "PlanInput");
  EXPECT_NE(r.err.find("bad\\n\\x1b[31mname"), std::string::npos) << r.err;
  // A key holding control characters, and a file name holding them.
  const std::string key = write("plan/key.json", "{\"stats\\u0007\": 1}");
  EXPECT_EQ(one_error_kind(run_cli("plan " + key).err), "PlanInput");
  const std::string odd = write("plan/odd\x1b[2Jname.json", "{");
  EXPECT_EQ(one_error_kind(run_cli("plan '" + odd + "'").err), "PlanInput");
  EXPECT_EQ(one_error_kind(run_cli("plan '" + (dir_ / "missing\x1b[2J.json").string() + "'").err),
            "Io");
}

TEST_F(HostileCli, H9IncludeThroughASymbolicLinkOutsideTheFolderIsRefused) {
  const std::string secret = write("outside_secret.txt", "hunter2 is the password\n");
  fs::create_directories(dir_ / "wgsl/inc");
  fs::create_symlink(secret, dir_ / "wgsl/inc/secret.wgsl");
  const std::string shader = write("wgsl/inc/H9.wgsl",
                                   "// shared declarations\n// @include secret.wgsl\nstruct S { a: f32 }\n");
  const test::CliResult r = run_cli("layout " + shader);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(one_error_kind(r.err), "Io");
  EXPECT_NE(r.err.find("@include secret.wgsl"), std::string::npos) << r.err;  // as written
  EXPECT_EQ(r.err.find("hunter2"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("hunter2"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("outside_secret"), std::string::npos) << r.err;  // nor where it points

  // A link inside the folder to a file of the folder is an ordinary include.
  write("wgsl/inc/common.wgsl", "struct Common { a: f32 }\n");
  fs::create_symlink("common.wgsl", dir_ / "wgsl/inc/alias.wgsl");
  const std::string ok = write("wgsl/inc/ok.wgsl", "// x\n// @include alias.wgsl\nstruct T { c: Common }\n");
  const test::CliResult good = run_cli("layout " + ok);
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("struct Common"), std::string::npos);

  // Relatives: '..', an absolute path, a subfolder, a control character, a folder link.
  fs::create_directories(dir_ / "elsewhere");
  write("elsewhere/x.wgsl", "struct X { a: f32 }\n");
  fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "wgsl/inc/sub");
  for (const std::string& name : {std::string("../../outside_secret.txt"), secret,
                                  std::string("sub/x.wgsl"), std::string("a\x1b[2Jb.wgsl"),
                                  std::string("..")}) {
    const std::string s = write("wgsl/inc/rel.wgsl", "// x\n// @include " + name + "\n");
    const test::CliResult rr = run_cli("layout " + s);
    EXPECT_EQ(rr.exit_code, 2) << name;
    EXPECT_EQ(one_error_kind(rr.err), "Io") << name;
    EXPECT_EQ(rr.err.find("hunter2"), std::string::npos) << rr.err;
  }
}

TEST_F(HostileCli, LayoutErrorsAreCompilerStyleWithTheFileName) {
  const std::string shader =
      write("s.wgsl", "struct X {\n  a: array<u32, 2>,\n}\n@group(0) @binding(0) var<uniform> u: X;\n");
  const test::CliResult r = run_cli("layout " + shader);
  EXPECT_EQ(r.exit_code, 1);
  // L06: the array's stride 4 in uniform, at the member (line 2, column 3).
  EXPECT_NE(r.out.find(shader + ":2:3: error [WgslLayout]: "), std::string::npos) << r.out;
}

TEST_F(HostileCli, H8AndH7OfPlainLayout) {
  EXPECT_EQ(run_cli("layout " + write("H8.wgsl", "var<private> a: array<u32>;\n")).exit_code, 1);
  EXPECT_EQ(run_cli("layout " + write("H8b.wgsl", "fn f() { var a: atomic<u32>; }\n")).exit_code, 1);
  const std::string deep = write(
      "H7.wgsl", "struct S { a: f32 }\n@group(0) @binding(0) var<storage> s: S;\nfn f() -> f32 { let x = " +
                     std::string(100000, '(') + "1.0" + std::string(100000, ')') +
                     "; return x; }\n");
  const test::CliResult r = run_cli("layout " + deep, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;  // not parsed: bindery's nesting limit
  EXPECT_NE(r.out.find(deep + ":3:"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("[WgslSyntax]"), std::string::npos);
}

TEST_F(HostileCli, UnknownSubcommandsAndOptionsAreNamedWithTheNearestOne) {
  const test::CliResult sub = run_cli("bogus");
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_EQ(one_error_kind(sub.err), "InvalidArgument");
  EXPECT_NE(sub.err.find("'bogus'"), std::string::npos) << sub.err;
  const test::CliResult near = run_cli("rendr");
  EXPECT_NE(near.err.find("did you mean 'render'"), std::string::npos) << near.err;

  const test::CliResult opt = run_cli("render --strategies naive");
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_EQ(one_error_kind(opt.err), "InvalidArgument");
  EXPECT_NE(opt.err.find("'--strategies'"), std::string::npos) << opt.err;
  EXPECT_NE(opt.err.find("'render'"), std::string::npos) << opt.err;
  EXPECT_NE(opt.err.find("did you mean '--strategy'"), std::string::npos) << opt.err;
  EXPECT_EQ(opt.err.find("were not expected"), std::string::npos) << opt.err;  // CLI11's words
  EXPECT_EQ(one_error_kind(run_cli("plan --jsn x.json").err), "InvalidArgument");
}

// A command line and the words its usage error must contain.
struct UsageCase {
  const char* args;
  const char* message;
};

// Each case is a usage error: exit 2, one [InvalidArgument] line containing its message.
template <size_t N>
void expect_usage_errors(const UsageCase (&cases)[N]) {
  for (const UsageCase& c : cases) {
    const test::CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.err;
    EXPECT_EQ(one_error_kind(r.err), "InvalidArgument") << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
  }
}

// A flag given a value: CLI11 read "--raw-floor=5" as on, "--quiet=0" and "--raw-floor=-1" as
// off, and "--raw-floor=banana" as a conversion error naming an empty type "()". Every flag of
// every command refuses a value, naming the flag and what was given (exit 2, before any device),
// "=true" too (CLI11 alone takes it, the flag's own value: a reviewer found `--quiet=true` taken
// while `--quiet=1` was refused).
TEST_F(HostileCli, FlagsTakeNoValue) {
  const UsageCase cases[] = {
      {"bench --raw-floor=banana", "--raw-floor is a flag and takes no value ('banana'"},
      {"bench --raw-floor=5", "--raw-floor is a flag and takes no value ('5'"},
      {"bench --raw-floor=-1", "--raw-floor is a flag and takes no value ('-1'"},
      {"render --quiet=0", "--quiet is a flag and takes no value ('0'"},
      {"soak --quiet=false", "--quiet is a flag and takes no value ('false'"},
      {"layout --json=1 x.wgsl", "--json is a flag and takes no value ('1'"},
      {"plan --strict=no x.json", "--strict is a flag and takes no value ('no'"},
      {"render --quiet=true", "--quiet is a flag and takes no value ('true'"},
      {"bench --raw-floor=true", "--raw-floor is a flag and takes no value ('true'"},
      {"view --quiet=true", "--quiet is a flag and takes no value ('true'"}};
  expect_usage_errors(cases);
}

// A whole-number option given other text names the range its help states (a reviewer found
// `bench --repeat abc` answered "not a whole number within the option's range" without the
// range): --repeat's is 1..100 (README, bench's options), --objects' 0..10000000 (kMaxObjects).
TEST_F(HostileCli, NonNumbersForWholeNumberOptionsNameTheRange) {
  const UsageCase cases[] = {
      {"bench --repeat abc", "--repeat 'abc' is not a whole number in 1..100"},
      {"render --objects 1.5", "--objects '1.5' is not a whole number in 0..10000000"}};
  expect_usage_errors(cases);
}

// A breaker's findings in the parser: an option followed by another option's name took it as
// its value and ran (`render --png --quiet` wrote a PNG named "--quiet"); `--frames 2` beside a bad
// `--frames-in-flight` was blamed ("--frames" is part of the other's name); options before the
// subcommand got CLI11's own words; `--help=1` and `--version=x` printed the text; '--' was
// called an unknown option; "1x" was called hexadecimal; a decimal option's range went unnamed.
// Each is one [InvalidArgument] line, exit 2, before any device.
TEST_F(HostileCli, ParserFindingsOfTheBreakerAreUsageErrors) {
  const UsageCase cases[] = {
      {"render --png --quiet",
       "--png takes a value, and the argument after it is the option --quiet"},
      {"render --strategy --objects 5",
       "--strategy takes a value, and the argument after it is the option --objects"},
      {"render --scene --quiet=true",
       "--scene takes a value, and the argument after it is the option --quiet"},
      {"render --frames 2 --frames-in-flight abc", "--frames-in-flight 'abc' is not a whole number"},
      {"--bogus render", "option '--bogus' is not bindery's"},
      {"--bogus", "option '--bogus' is not bindery's"},
      {"rendr --quiet", "'rendr' is not a bindery subcommand (did you mean 'render'?)"},
      {"--version=abc", "--version is a flag and takes no value ('abc' given)"},
      {"--help=1", "--help is a flag and takes no value ('1' given)"},
      {"render -h=x", "-h is a flag and takes no value ('x' given)"},
      {"render -- --quiet", "unexpected argument '--quiet' after '--'"},
      {"-- bench", "'--' comes before the subcommand"},
      {"render --=2", "'--=2' is not an option"},
      {"bench --repeat 1x", "--repeat '1x' is not a whole number in 1..100"},
      {"render --moving abc", "--moving 'abc' is not a number in 0..1"}};
  expect_usage_errors(cases);
  EXPECT_FALSE(fs::exists("--quiet"));  // the PNG `render --png --quiet` wrote before
  const test::CliResult help = run_cli("render --png --help");
  EXPECT_EQ(help.exit_code, 2) << help.err;
  EXPECT_FALSE(fs::exists("--help"));
}

// Values bindery checks itself (exit 1): 'all' among other strategy names; --time out of range
// quoted as typed (it printed 1e+06 for 1000000.5, as if within -1e+06..1e+06).
TEST_F(HostileCli, StrategyListsAndTimesAreQuotedAsTyped) {
  const test::CliResult all = run_cli("bench --strategies all,naive");
  EXPECT_EQ(all.exit_code, 1) << all.err;
  EXPECT_EQ(one_error_kind(all.err), "InvalidArgument");
  EXPECT_NE(all.err.find("lists 'all' with other names"), std::string::npos) << all.err;
  const test::CliResult time = run_cli("render --time 1000000.5");
  EXPECT_EQ(one_error_kind(time.err), "InvalidArgument");
  EXPECT_NE(time.err.find("--time 1000000.5 is outside"), std::string::npos) << time.err;
}

// Issue 26: a misspelt --strategy got no suggestion (a misspelt subcommand did). Every option
// whose values are a list: the strategies bindery looks up itself (exit 1), the sets CLI11 checks
// (exit 2); a value far from every name gets no suggestion.
TEST_F(HostileCli, MisspeltValuesOfEnumeratedOptionsAreNamedWithTheNearestOne) {
  const test::CliResult strategy = run_cli("render --strategy dynamic-ofsets");
  EXPECT_EQ(strategy.exit_code, 1) << strategy.err;
  EXPECT_EQ(one_error_kind(strategy.err), "InvalidArgument");
  EXPECT_NE(strategy.err.find("did you mean 'dynamic-offsets'"), std::string::npos)
      << strategy.err;
  const test::CliResult listed = run_cli("bench --strategies naive,gpu-drivn");
  EXPECT_EQ(one_error_kind(listed.err), "InvalidArgument");
  EXPECT_NE(listed.err.find("did you mean 'gpu-driven'"), std::string::npos) << listed.err;
  const struct {
    const char* args;
    const char* suggestion;
  } sets[] = {{"render --backend vulkn", "did you mean 'vulkan'"},
              {"render --limits adaptr", "did you mean 'adapter'"},
              {"render --scene citty", "did you mean 'city'"},
              {"render --draw-path bundel", "did you mean 'bundle'"},
              {"render --material-backend binding-arrays", "did you mean 'binding-array'"},
              {"render --occlusion offf", "did you mean 'off'"}};
  for (const auto& c : sets) {
    const test::CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.err;
    EXPECT_EQ(one_error_kind(r.err), "InvalidArgument") << c.args;
    EXPECT_NE(r.err.find(c.suggestion), std::string::npos) << c.args << ": " << r.err;
  }
  const test::CliResult far = run_cli("render --strategy zzzzzzzzzzzzzzzz");
  EXPECT_EQ(one_error_kind(far.err), "InvalidArgument");
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST_F(HostileCli, IntegerOptionsNameWhatWasTyped) {
  const test::CliResult neg = run_cli("render --seed -1");
  EXPECT_EQ(neg.exit_code, 2);
  EXPECT_EQ(one_error_kind(neg.err), "InvalidArgument");
  EXPECT_NE(neg.err.find("'-1'"), std::string::npos) << neg.err;
  const test::CliResult big = run_cli("render --encode-threads 99999999999999999999");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_EQ(one_error_kind(big.err), "InvalidArgument");
  EXPECT_NE(big.err.find("'99999999999999999999'"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("--encode-threads"), std::string::npos) << big.err;
  const test::CliResult word = run_cli("soak --objects many");
  EXPECT_EQ(one_error_kind(word.err), "InvalidArgument");
  EXPECT_NE(word.err.find("'many'"), std::string::npos) << word.err;
}

// An empty number is refused, not read as 0; a name outside an option's set lists the set.
TEST_F(HostileCli, EmptyNumbersAndUnknownNamesAreNamed) {
  for (const char* args : {"render --time ''", "render --spread ''", "bench --moving ''",
                           "render --seed ''", "render --model ''", "bench --model ''"}) {
    const test::CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(one_error_kind(r.err), "InvalidArgument") << args << "\n" << r.err;
    EXPECT_NE(r.err.find("the value is empty"), std::string::npos) << args << "\n" << r.err;
  }
  // --time beyond 1e6 s: the 32-bit angles of the animation lose the precision the CPU and GPU
  // strategies agree on; the message keeps what was typed (1e39 is no float: not "inf").
  const test::CliResult late = run_cli("render --time 1e39");
  EXPECT_EQ(late.exit_code, 1);
  EXPECT_EQ(one_error_kind(late.err), "InvalidArgument") << late.err;
  EXPECT_NE(late.err.find("--time 1e+39 is outside -1e+06..1e+06"), std::string::npos) << late.err;
  EXPECT_EQ(one_error_kind(run_cli("render --time -2e6").err), "InvalidArgument");
  const test::CliResult twice = run_cli("render --objects 3 --objects 4");
  EXPECT_EQ(one_error_kind(twice.err), "InvalidArgument") << twice.err;
  EXPECT_NE(twice.err.find("option --objects is given 2 times"), std::string::npos) << twice.err;
  // --size: malformed text is InvalidArgument; a number too large, even past int64, is out of
  // range like a negative one.
  EXPECT_EQ(one_error_kind(run_cli("render --size 64by48").err), "InvalidArgument");
  for (const char* size : {"99999999999999999999x1", "-64x48", "0x5"})
    EXPECT_EQ(one_error_kind(run_cli(std::string("render --size ") + size).err),
              "TextureSizeOutOfRange")
        << size;
  // A strategy name of bytes outside UTF-8 and a C1 CSI comes back escaped, in every command.
  for (const char* args : {"render --strategy 'x\xff\x9by'", "soak --strategies 'x\xff\x9by'"}) {
    const test::CliResult bytes = run_cli(args);
    EXPECT_EQ(bytes.exit_code, 1) << args;
    EXPECT_NE(bytes.err.find("'x\\xff\\x9by'"), std::string::npos) << bytes.err;
    EXPECT_EQ(bytes.err.find('\x9b'), std::string::npos) << bytes.err;
  }
  const test::CliResult on = run_cli("render --occlusion ON");
  EXPECT_EQ(on.exit_code, 2);
  EXPECT_EQ(one_error_kind(on.err), "InvalidArgument") << on.err;
  EXPECT_NE(on.err.find("--occlusion 'ON' is not one of {on,off}"), std::string::npos) << on.err;
  const test::CliResult path = run_cli("render --draw-path fastest");
  EXPECT_NE(path.err.find("multi-draw-indirect-count"), std::string::npos) << path.err;
  EXPECT_NE(path.err.find("loop"), std::string::npos) << path.err;
}

// --moving is a share of the scene's objects: outside 0..1 it is the same refusal for every
// command and scene, before a device.
TEST_F(HostileCli, MovingOutsideZeroToOneIsSceneInputEverywhere) {
  for (const char* args :
       {"render --moving 1.5", "render --scene city --moving 1.5", "render --moving -0.1",
        "bench --scene city --moving 1.5", "soak --scene city --moving nan"}) {
    const test::CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_EQ(one_error_kind(r.err), "SceneInput") << args << "\n" << r.err;
    EXPECT_NE(r.err.find("--moving"), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("outside 0..1"), std::string::npos) << args << "\n" << r.err;
  }
}

TEST_F(HostileCli, H11OptionsThatDoNotApplyToTheSceneAreRefused) {
  // Refused before any device is created or model read.
  const test::CliResult inst = run_cli("render --objects 10 --instances 5");
  EXPECT_EQ(inst.exit_code, 1);
  EXPECT_EQ(one_error_kind(inst.err), "SceneInput");
  const test::CliResult seed = run_cli("render --model " + (dir_ / "none.gltf").string() + " --seed 3");
  EXPECT_EQ(seed.exit_code, 1);
  EXPECT_EQ(one_error_kind(seed.err), "SceneInput");
  // --model alone means a glTF scene in bench and soak too (as in render and view).
  for (const char* command : {"bench", "soak"}) {
    const test::CliResult alone =
        run_cli(std::string(command) + " --model " + (dir_ / "none.gltf").string());
    EXPECT_EQ(alone.exit_code, 1) << command;
    EXPECT_EQ(alone.err.find("needs --scene gltf"), std::string::npos) << alone.err;
    EXPECT_NE(alone.err.find("none.gltf"), std::string::npos) << alone.err;
  }
  // A glTF model's objects do not move; only a glTF model has images to budget.
  const test::CliResult moving =
      run_cli("render --model " + (dir_ / "none.gltf").string() + " --moving 0.5");
  EXPECT_EQ(one_error_kind(moving.err), "SceneInput") << moving.err;
  EXPECT_NE(moving.err.find("--moving"), std::string::npos) << moving.err;
  for (const char* args : {"render --image-budget-mib 5", "render --scene city --image-budget-mib 5",
                           "render --geometry-budget-mib 5"}) {
    const test::CliResult budget = run_cli(args);
    EXPECT_EQ(budget.exit_code, 1) << args;
    EXPECT_EQ(one_error_kind(budget.err), "SceneInput") << budget.err;
    EXPECT_NE(budget.err.find("-budget-mib limits what a glTF model decodes"), std::string::npos)
        << budget.err;
  }
}

TEST_F(HostileCli, H10LostStandardOutputIsAnIoError) {
  const std::string plan = write(
      "p.json",
      "{\"bindings\": [{\"name\": \"camera\", \"kind\": \"uniform\", \"size\": 64, \"frequency\": "
      "\"frame\"}], \"stats\": {\"objects\": 4, \"materials\": 1, \"passes\": 1}}");
  ASSERT_EQ(run_cli("plan " + plan).exit_code, 0);
  const std::string shader = write("s.wgsl", "struct S { a: f32 }\n");
  for (const std::string& args : {"plan " + plan, "layout " + shader, "layout --json " + shader}) {
    const test::CliResult full = run_cli(args + " >/dev/full");
    EXPECT_EQ(full.exit_code, 1) << args;
    EXPECT_EQ(one_error_kind(full.err), "Io") << args;
    const test::CliResult closed = run_cli(args + " >&-");
    EXPECT_EQ(closed.exit_code, 1) << args;
    EXPECT_EQ(one_error_kind(closed.err), "Io") << args;
  }
}

}  // namespace
}  // namespace bindery
