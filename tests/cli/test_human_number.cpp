// stats::human_number: the rounding every human-readable line of heist bench
// and heist sim uses.
#include <gtest/gtest.h>

#include "stats/human_number.hpp"

using heist::stats::human_number;

TEST(HumanNumber, FourSignificantDigits) {
  EXPECT_EQ(human_number(0.045470170000000004), "0.04547");
  EXPECT_EQ(human_number(0.06580080999999999), "0.0658");
  EXPECT_EQ(human_number(1234.5678), "1235");
  EXPECT_EQ(human_number(12.345678), "12.35");
  EXPECT_EQ(human_number(-3.14159265), "-3.142");
  EXPECT_EQ(human_number(0.000675), "0.000675");
}

TEST(HumanNumber, DropsTrailingZeros) {
  EXPECT_EQ(human_number(3.0), "3");
  EXPECT_EQ(human_number(0.5), "0.5");
  EXPECT_EQ(human_number(100.0), "100");
  EXPECT_EQ(human_number(0.0), "0");
}

TEST(HumanNumber, RoundingCarriesIntoTheNextDecade) {
  EXPECT_EQ(human_number(9999.7), "10000");  // 1.000e+04: four digits, no point
  EXPECT_EQ(human_number(0.99996), "1");
  EXPECT_EQ(human_number(999999.9), "1e+06");
}

TEST(HumanNumber, ExponentOutsidePlainRange) {
  EXPECT_EQ(human_number(1234567.0), "1.235e+06");
  EXPECT_EQ(human_number(2.56e6), "2.56e+06");
  EXPECT_EQ(human_number(0.0000123456), "1.235e-05");
  EXPECT_EQ(human_number(0.0001), "0.0001");
}

TEST(HumanNumber, OtherPrecisionsAndSpecialValues) {
  EXPECT_EQ(human_number(0.045470170000000004, 3), "0.0455");
  EXPECT_EQ(human_number(1.0 / 0.0), "inf");
  EXPECT_EQ(human_number(-1.0 / 0.0), "-inf");
  EXPECT_EQ(human_number(std::nan("")), "nan");
}
