// Redirections and the fd table: files of the FileSystem, the /dev files the interpreter provides,
// duplication and closing, here-documents, {var}> allocation, process substitution.
#include <cerrno>
#include <cstring>

#include "interp/exec.hpp"
#include "interp/file_stream.hpp"
#include "interp/fields.hpp"
#include "interp/stream_charge.hpp"

namespace bashkit::interp {

namespace {
// A here-document or here-string body, charged to the session's memory budget while it is open.
class ChargedSource : public StringSource {
public:
    ChargedSource(std::string data, MemoryCharge held) : StringSource(std::move(data)), held_(std::move(held)) {}

private:
    MemoryCharge held_;
};
}  // namespace


void Exec::RedirGuard::save(int fd) {
    for (const auto& [f, s] : saved_)
        if (f == fd) return;
    saved_.emplace_back(fd, e_.fd(fd));
}

void Exec::RedirGuard::restore() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) e_.set_fd(it->first, std::move(it->second));
    saved_.clear();
}

StreamPtr Exec::fd(int n) const {
    if (n < 0 || static_cast<size_t>(n) >= state_.fds.size()) return nullptr;
    return state_.fds[static_cast<size_t>(n)];
}

StreamPtr Exec::fd_or_bad(int n) const {
    StreamPtr s = fd(n);
    return s ? s : std::make_shared<BadStream>();
}

void Exec::set_fd(int n, StreamPtr s) {
    if (n < 0) return;
    if (static_cast<size_t>(n) >= state_.fds.size()) {
        if (!s) return;
        state_.fds.resize(static_cast<size_t>(n) + 1);
    }
    state_.fds[static_cast<size_t>(n)] = std::move(s);
}

namespace {
BadStream& bad_stream() {
    static BadStream b;  // stateless: every operation fails with EBADF
    return b;
}
}  // namespace

ByteStream& Exec::out() {
    if (state_.fds.size() > 1 && state_.fds[1]) return *state_.fds[1];
    return bad_stream();
}
ByteStream& Exec::err() {
    if (state_.fds.size() > 2 && state_.fds[2]) return *state_.fds[2];
    return bad_stream();
}
ByteStream& Exec::in() {
    if (!state_.fds.empty() && state_.fds[0]) return *state_.fds[0];
    return bad_stream();
}

bool Exec::write_out(std::string_view s) {
    IoResult r = out().write(s);
    if (r.err == EPIPE) broken_pipe_ = true;
    return r.ok();
}

void Exec::write_err(std::string_view s) { (void)err().write(s); }

std::string Exec::abs_path(std::string_view p) const {
    if (!p.empty() && p.front() == '/') return std::string(p);
    std::string r = state_.cwd;
    if (r.empty() || r.back() != '/') r.push_back('/');
    r.append(p);
    return r;
}

StreamPtr Exec::open_path(const std::string& path, int how, int& err) {
    err = 0;
    if (path.empty()) {  // open("") fails so (it is not the working directory)
        err = ENOENT;
        return nullptr;
    }
    if (path.starts_with("/dev/")) {
        DevicePath d = classify_device(vfs::normalize_path(path));
        if (d.kind != DevicePath::Kind::none) return open_device(d, device_source(), err);
    }
    std::string p = abs_path(path);
    vfs::OpenFlags flags = vfs::OpenFlags::none;
    bool r = false, w = false;
    switch (how) {
        case 0:
            flags = vfs::OpenFlags::read;
            r = true;
            break;
        case 1:
            flags = vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::truncate;
            w = true;
            break;
        case 2:
            flags = vfs::OpenFlags::append | vfs::OpenFlags::write | vfs::OpenFlags::create;
            w = true;
            break;
        case 3:
            flags = vfs::OpenFlags::read | vfs::OpenFlags::write | vfs::OpenFlags::create;
            r = w = true;
            break;
        case 4:  // noclobber: fail if it exists
            flags = vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::exclusive;
            w = true;
            break;
        default:
            break;
    }
    vfs::Mode mode = 0666 & ~state_.umask;
    auto h = session_.fs.open(p, flags, mode);
    if (!h) {
        err = vfs::to_errno(h.error());
        return nullptr;
    }
    if (r && !w) {
        // Reading a directory fails at open, as bash reports it.
        auto st = (*h)->stat();
        if (st && st->is_directory()) {
            err = EISDIR;
            return nullptr;
        }
    }
    return std::make_shared<FileStream>(std::move(*h), r, w, p);
}

Outcome Exec::apply_redirs(sx::List<sx::Redirect*> redirs, RedirGuard* guard) {
    using Op = sx::RedirOp;
    for (const sx::Redirect* r : redirs) {
        if (r->pos.line) lineno_ = r->pos.line + line_offset_;
        int fdn = r->fd;
        bool default_in = r->op == Op::In || r->op == Op::ReadWrite || r->op == Op::DupIn || r->op == Op::HereDoc ||
                          r->op == Op::HereString;
        if (fdn < 0) fdn = default_in ? 0 : 1;
        // A descriptor past the session's `ulimit -n` (1024) is refused as bash refuses one past its own: the
        // table of descriptors would grow to it (`echo 93000000> f` was a vector of 93 million entries).
        if (fdn >= 1024) {
            error(std::to_string(fdn) + ": Bad file descriptor");
            state_.status = 1;
            return Outcome::Fail;
        }
        std::string varname;
        if (!r->fd_var.empty()) {
            varname = std::string(r->fd_var);
            bool closing = (r->op == Op::DupOut || r->op == Op::DupIn) && r->target && r->target->parts.size == 1 &&
                           r->target->parts[0]->kind == sx::NodeKind::Lit && r->target->parts[0]->as<sx::Lit>()->text == "-";
            if (closing) {
                const std::string* cur = get_scalar(varname);
                int64_t n = -1;
                if (cur && parse_int(*cur, n) && n >= 0 && n < 1024) {
                    if (guard) guard->save(static_cast<int>(n));
                    set_fd(static_cast<int>(n), nullptr);
                }
                continue;
            }
            fdn = alloc_fd(10);
            if (fdn < 0) {
                error("redirection error: cannot duplicate fd: Too many open files");
                return Outcome::Fail;
            }
        }
        // Expand the target.
        std::string target;
        if (r->op == Op::HereDoc || r->op == Op::HereString) {
            Outcome e = r->op == Op::HereDoc ? expand_heredoc(r, target) : expand_word(r->target, target);
            if (e != Outcome::Ok) return e;
            if (r->op == Op::HereString) target.push_back('\n');
            // The body is held on the session's budget for as long as the descriptor is open.
            MemoryCharge held(&session_.memory);
            if (!held.try_add(target.size())) {
                error(std::string(r->op == Op::HereDoc ? "here-document" : "here-string") + ": " +
                      memory_limit_message(session_.memory.limit()));
                state_.status = 1;
                return Outcome::Fail;
            }
            if (guard) guard->save(fdn);
            set_fd(fdn, std::make_shared<ChargedSource>(std::move(target), std::move(held)));
            continue;
        }
        {
            std::vector<std::string> words;
            Outcome e = r->target ? expand_word_fields(r->target, words) : Outcome::Ok;
            if (e != Outcome::Ok) return e;
            if (words.size() != 1) {
                std::string raw;
                if (r->target) {
                    for (const sx::Node* p : r->target->parts) {
                        if (p->kind == sx::NodeKind::Lit)
                            raw += p->as<sx::Lit>()->text;
                        else if (p->kind == sx::NodeKind::ParamExp)
                            raw += "$" + std::string(p->as<sx::ParamExp>()->name);
                    }
                }
                error(raw + ": ambiguous redirect");
                state_.status = 1;
                return Outcome::Fail;
            }
            target = std::move(words[0]);
        }
        auto open_err = [&](int err) {
            error(target + ": " + std::string(vfs::error_message(static_cast<vfs::Errc>(err))));
            state_.status = 1;
            return Outcome::Fail;
        };
        // set -C: >, &> and >&word do not truncate an existing regular file (>| does).
        auto clobber_refused = [&]() {
            if (!state_.opts[OptNoclobber]) return false;
            auto st = session_.fs.stat(abs_path(target));
            if (!st || !st->is_regular()) return false;
            error(target + ": cannot overwrite existing file");
            state_.status = 1;
            return true;
        };
        StreamPtr s;
        int err = 0;
        switch (r->op) {
            case Op::In:
                s = open_path(target, 0, err);
                if (!s) return open_err(err);
                break;
            case Op::Out:
            case Op::Clobber:
                if (r->op == Op::Out && clobber_refused()) return Outcome::Fail;
                s = open_path(target, 1, err);
                if (!s) return open_err(err);
                break;
            case Op::Append:
                s = open_path(target, 2, err);
                if (!s) return open_err(err);
                break;
            case Op::ReadWrite:
                s = open_path(target, 3, err);
                if (!s) return open_err(err);
                break;
            case Op::DupIn:
            case Op::DupOut: {
                if (target == "-") {
                    if (guard) guard->save(fdn);
                    set_fd(fdn, nullptr);
                    continue;
                }
                bool move = !target.empty() && target.back() == '-';
                std::string num = move ? target.substr(0, target.size() - 1) : target;
                int64_t src = -1;
                bool numeric = !num.empty() && std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; });
                if (!numeric) {
                    if (r->op == Op::DupOut && (r->fd < 0 || r->fd == 1)) {
                        // `>&word` and `1>&word`: both stdout and stderr to the file.
                        if (clobber_refused()) return Outcome::Fail;
                        s = open_path(target, 1, err);
                        if (!s) return open_err(err);
                        if (guard) {
                            guard->save(1);
                            guard->save(2);
                        }
                        set_fd(1, s);
                        set_fd(2, s);
                        continue;
                    }
                    error(target + ": ambiguous redirect");
                    state_.status = 1;
                    return Outcome::Fail;
                }
                parse_int(num, src);
                StreamPtr from = src < 1024 ? fd(static_cast<int>(src)) : nullptr;
                if (!from) {
                    error(num + ": Bad file descriptor");
                    state_.status = 1;
                    return Outcome::Fail;
                }
                if (guard) guard->save(fdn);
                set_fd(fdn, from);
                if (move && src != fdn) {
                    if (guard) guard->save(static_cast<int>(src));
                    set_fd(static_cast<int>(src), nullptr);
                }
                if (!varname.empty()) (void)assign(varname, to_dec(fdn));
                continue;
            }
            case Op::OutErr:
            case Op::AppendOutErr: {
                if (r->op == Op::OutErr && clobber_refused()) return Outcome::Fail;
                s = open_path(target, r->op == Op::OutErr ? 1 : 2, err);
                if (!s) return open_err(err);
                if (guard) {
                    guard->save(1);
                    guard->save(2);
                }
                set_fd(1, s);
                set_fd(2, s);
                continue;
            }
            default:
                break;
        }
        if (guard && varname.empty()) guard->save(fdn);
        set_fd(fdn, std::move(s));
        if (!varname.empty()) (void)assign(varname, to_dec(fdn));
    }
    return Outcome::Ok;
}

Outcome Exec::proc_subst(const sx::ProcSubst* p, std::string& path) {
    PipeEnds pe = make_charged_pipe(cancel_, session_.memory);
    int n = 63;
    while (n > 10 && fd(n)) --n;
    if (fd(n)) {
        error("process substitution: too many open files");
        return Outcome::Fail;
    }
    auto state = std::make_shared<ShellState>(state_.job_copy());
    if (p->output) {
        state->fds[0] = pe.reader;
        set_fd(n, pe.writer);
    } else {
        state->fds[1] = pe.writer;
        set_fd(n, pe.reader);
    }
    // The child must not keep the parent's end open.
    if (static_cast<size_t>(n) < state->fds.size()) state->fds[static_cast<size_t>(n)].reset();
    pe.reader.reset();
    pe.writer.reset();
    // The body as a Subshell-like command: a Brace over the statements would need a node; run the list.
    auto body = p->body;
    int64_t pid = start_list_job(state, body);
    if (pid < 0) {
        set_fd(n, nullptr);
        return Outcome::Fail;
    }
    procsubst_fds_.push_back(n);
    path = "/dev/fd/" + std::to_string(n);
    return Outcome::Ok;
}

}  // namespace bashkit::interp
