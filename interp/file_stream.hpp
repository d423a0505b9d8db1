// Streams over an open file of the FileSystem (redirections to and from files, `exec 3<file`).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "interp/stream.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::interp {

class FileStream : public ByteStream {
public:
    FileStream(std::unique_ptr<vfs::FileHandle> handle, bool readable, bool writable, std::string path)
        : h_(std::move(handle)), readable_(readable), writable_(writable), path_(std::move(path)) {}
    bool readable() const override { return readable_; }
    bool writable() const override { return writable_; }
    IoResult read(char* buf, size_t n) override;
    IoResult write(std::string_view data) override;
    IoResult read_until(char delim, std::string& out, size_t max = SIZE_MAX) override;
    bool unread(std::string_view data) override;
    std::string describe() const override { return path_; }

private:
    // Refills buf_ when it is empty; false at EOF or error (err set).
    bool fill(int& err);
    std::mutex mu_;
    std::unique_ptr<vfs::FileHandle> h_;
    bool readable_, writable_;
    std::string path_;
    std::string buf_;  // read-ahead, consumed from pos_
    size_t pos_ = 0;
};

}  // namespace bashkit::interp
