// The precompiled header of bashkit_utils (utils/CMakeLists.txt, BASHKIT_PCH): what nearly every
// utility's file includes, parsed once for the ~140 files of the target instead of once per file (a third
// of each file's compile time). Every file must still include what it uses, so that the target builds with
// -DBASHKIT_PCH=OFF too: the header hides a missing include, and only a build in that configuration shows it.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/common/io.hpp"
#include "interp/command.hpp"
