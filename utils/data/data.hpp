// Data utilities: base64 base32 md5sum sha1sum sha224sum sha256sum sha384sum sha512sum cksum expr bc.
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_data_utils(interp::CommandRegistry& registry);
}
