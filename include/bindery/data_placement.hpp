// SPDX-License-Identifier: MIT
// Deprecated: moved to <bindery/data/data_placement.hpp> (docs/ARCHITECTURE.md);
// this 0.2 path forwards there and keeps compiling through 0.x.
#pragma once
#include "bindery/data/data_placement.hpp"
