// The Catch2 test runner for the native suite.
//
// Catch's runner instantiates std::regex; with sanitizers and optimisation, GCC 12 reports a
// false -Wmaybe-uninitialized inside libstdc++'s std::function for it. Only this file is
// exempted, and only from that one warning.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
