//===- InitTests.cpp - --init's spec and draws (runtime/main/Init.h) ------===//
//
// The parser's errors, the rule a parameter gets, the standard deviation
// of each rule, and the draws: keyed by the seed, the name and the element
// index only (so any layout sees the same values), zeros exact, and a
// sample's spread that of the rule. The broadcast and the training runs
// are in test/training/init.test.
//
//===----------------------------------------------------------------------===//

#include "Init.h"

#include "weft/rt/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

const std::vector<std::string> kParams = {"W1", "b1", "W2"};

std::string errorOf(const std::string &spec) {
  try {
    parseInitSpec(spec, kParams);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Init, NamedRulesAndTheDefault) {
  InitSpec s = parseInitSpec("W1=normal:0.02,b1=zeros,scaled:2", kParams);
  ASSERT_NE(s.ruleFor("W1"), nullptr);
  EXPECT_EQ(s.ruleFor("W1")->kind, InitRule::Normal);
  EXPECT_EQ(s.ruleFor("W1")->scale, 0.02);
  EXPECT_EQ(s.ruleFor("b1")->kind, InitRule::Zeros);
  // W2 is not named: the default.
  EXPECT_EQ(s.ruleFor("W2")->kind, InitRule::Scaled);
  EXPECT_EQ(s.ruleFor("W2")->text, "scaled:2");
  // Without a default, an unnamed parameter has no rule.
  InitSpec t = parseInitSpec("W1=zeros", kParams);
  EXPECT_EQ(t.ruleFor("W2"), nullptr);
}

TEST(Init, BadSpecsAreErrorsNamingTheItem) {
  EXPECT_EQ(errorOf("W1=xavier"),
            "option --init: unknown initializer 'xavier' in 'W1=xavier' "
            "(expected normal:STD, scaled:GAIN or zeros)");
  EXPECT_EQ(errorOf("W9=zeros"), "option --init: 'W9' is not a parameter of "
                                 "the program (parameters: W1, b1, W2)");
  EXPECT_EQ(errorOf("normal"), "option --init: 'normal': normal needs a "
                               "value: normal:STD (e.g. normal:0.02)");
  EXPECT_EQ(errorOf("W1=normal:-1"), "option --init: 'W1=normal:-1': STD "
                                     "must be a finite number >= 0, got '-1'");
  EXPECT_EQ(errorOf("scaled:inf"), "option --init: 'scaled:inf': GAIN must "
                                   "be a finite number >= 0, got 'inf'");
  EXPECT_EQ(errorOf("W1=normal:0.1x"), "option --init: 'W1=normal:0.1x': STD "
                                       "must be a finite number >= 0, got "
                                       "'0.1x'");
  EXPECT_EQ(errorOf("zeros,normal:1"),
            "option --init: two defaults ('zeros' and 'normal:1'); name the "
            "parameter of one: NAME=INIT");
  EXPECT_EQ(errorOf("W1=zeros,W1=normal:1"),
            "option --init: parameter 'W1' is given twice");
  EXPECT_EQ(errorOf("W1=zeros,,b1=zeros"),
            "option --init: empty item in 'W1=zeros,,b1=zeros'");
  EXPECT_EQ(errorOf("W1=zeros,"), "option --init: empty item in 'W1=zeros,'");
  EXPECT_NE(errorOf(""), "");
}

TEST(Init, StandardDeviations) {
  InitSpec s = parseInitSpec("W1=normal:0.5,b1=zeros,scaled:3", kParams);
  EXPECT_EQ(initStd(*s.ruleFor("W1"), {64, 32}), 0.5);
  EXPECT_EQ(initStd(*s.ruleFor("b1"), {32}), 0);
  // fan_in: every dimension but the last.
  EXPECT_DOUBLE_EQ(initStd(*s.ruleFor("W2"), {4, 16, 32}), 3.0 / 8.0);
  EXPECT_DOUBLE_EQ(initStd(*s.ruleFor("W2"), {32}), 3.0);
}

TEST(Init, DrawsDependOnSeedNameAndIndexOnly) {
  InitSpec s = parseInitSpec("normal:1", kParams);
  const InitRule &r = *s.ruleFor("W1");
  std::vector<float> a(4096), b(4096), c(4096), d(4096);
  fillInit(r, 7, "W1", DType::F32, {64, 64}, a.data());
  fillInit(r, 7, "W1", DType::F32, {64, 64}, b.data());
  fillInit(r, 8, "W1", DType::F32, {64, 64}, c.data());
  fillInit(r, 7, "W2", DType::F32, {64, 64}, d.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  // The same element index under another shape: the same value.
  std::vector<float> flat(4096);
  fillInit(r, 7, "W1", DType::F32, {4096}, flat.data());
  EXPECT_EQ(a, flat);
  // The spread of the sample is the rule's (4096 draws: the sample std of
  // N(0, 1) is within 5% with overwhelming probability).
  double sum = 0, sq = 0;
  for (float v : a) {
    sum += v;
    sq += double(v) * v;
  }
  double mean = sum / 4096, sd = std::sqrt(sq / 4096 - mean * mean);
  EXPECT_LT(std::abs(mean), 0.1);
  EXPECT_NEAR(sd, 1.0, 0.05);
}

TEST(Init, ZerosAndDtypes) {
  InitSpec s = parseInitSpec("zeros", kParams);
  std::vector<double> z(10, 1.0);
  fillInit(*s.ruleFor("b1"), 1, "b1", DType::F64, {10}, z.data());
  for (double v : z)
    EXPECT_EQ(v, 0.0);
  InitSpec n = parseInitSpec("normal:0.5", kParams);
  std::vector<double> f64(8);
  std::vector<uint16_t> bf16(8);
  fillInit(*n.ruleFor("W1"), 1, "W1", DType::F64, {8}, f64.data());
  fillInit(*n.ruleFor("W1"), 1, "W1", DType::BF16, {8}, bf16.data());
  for (int i = 0; i < 8; ++i)
    EXPECT_NEAR(bfloat16ToFloat(bf16[i]), f64[i], std::abs(f64[i]) / 64);
  std::vector<int32_t> ids(4);
  EXPECT_THROW(fillInit(*n.ruleFor("W1"), 1, "W1", DType::I32, {4}, ids.data()),
               Error);
}

} // namespace
