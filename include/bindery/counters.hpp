// SPDX-License-Identifier: MIT
// Deprecated: moved to <bindery/core/counters.hpp> (docs/ARCHITECTURE.md);
// this 0.2 path forwards there and keeps compiling through 0.x.
#pragma once
#include "bindery/core/counters.hpp"
