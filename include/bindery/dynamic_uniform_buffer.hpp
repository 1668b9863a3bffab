// SPDX-License-Identifier: MIT
// Deprecated: moved to <bindery/data/dynamic_uniform_buffer.hpp> (docs/ARCHITECTURE.md);
// this 0.2 path forwards there and keeps compiling through 0.x.
#pragma once
#include "bindery/data/dynamic_uniform_buffer.hpp"
