// The samples' command lines (samples/common/sample_args.h): values, ranges, --help and
// usage errors, as play_pack, render, fox_walk and play_column use them.
#include "sample_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

const char* const kUsage = "usage: demo PACK [--ticks N] [--size WxH] [-o DIR]\n";

struct Parsed {
  int status = -1;
  std::string pack, out_dir = "out";
  long ticks = 240, width = 480, height = 360;
};

// Parses `args` (after the program name) as a sample with PACK, --ticks 1..1000,
// --size 16..4096 and -o.
Parsed parse(std::vector<std::string> args) {
  Parsed p;
  CLI::App app;
  app.add_option("PACK", p.pack)->required();
  animpack::samples::add_number(app, "--ticks", 1, 1000, &p.ticks);
  animpack::samples::add_size(app, "--size", 16, 4096, &p.width, &p.height);
  app.add_option("-o", p.out_dir)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  args.insert(args.begin(), "demo");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  p.status =
      animpack::samples::parse(app, static_cast<int>(argv.size()), argv.data(), "demo", kUsage);
  return p;
}

TEST(SampleArgs, DefaultsStayWhenOptionsAreLeftOut) {
  const Parsed p = parse({"a.anpk"});
  EXPECT_EQ(p.status, -1);
  EXPECT_EQ(p.pack, "a.anpk");
  EXPECT_EQ(p.ticks, 240);
  EXPECT_EQ(p.width, 480);
  EXPECT_EQ(p.height, 360);
  EXPECT_EQ(p.out_dir, "out");
}

TEST(SampleArgs, OptionsTakeValuesInAnyOrderAndTheLastWins) {
  const Parsed p = parse({"--ticks", "5", "a.anpk", "--size=64x32", "-o", "d", "--ticks=7"});
  EXPECT_EQ(p.status, -1);
  EXPECT_EQ(p.pack, "a.anpk");
  EXPECT_EQ(p.ticks, 7);
  EXPECT_EQ(p.width, 64);
  EXPECT_EQ(p.height, 32);
  EXPECT_EQ(p.out_dir, "d");
}

TEST(SampleArgs, HelpReturnsZero) { EXPECT_EQ(parse({"--help"}).status, 0); }

TEST(SampleArgs, BadValuesUnknownOptionsAndAMissingPackAreUsageErrors) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"a.anpk", "--ticks", "0"},
                                             {"a.anpk", "--ticks", "1001"},
                                             {"a.anpk", "--ticks", "5x"},
                                             {"a.anpk", "--ticks"},
                                             {"a.anpk", "--size", "15x20"},
                                             {"a.anpk", "--size", "20x"},
                                             {"a.anpk", "--size", "20"},
                                             {"a.anpk", "--bogus"},
                                             {"a.anpk", "b.anpk"}}) {
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_EQ(parse(args).status, 2) << joined;
  }
}

}  // namespace
