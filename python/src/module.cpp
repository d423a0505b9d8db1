// The Python module `bashkit` (built as bashkit._bashkit; python/bashkit/__init__.py re-exports it): the
// sandbox API of sandbox/ with the same names, keyword arguments and defaults.
//
// Threads and signals. Every call that may run a command (execute, call_tool, open and close with their
// hooks, read_file, write_file) releases the GIL, so other Python threads go on meanwhile; a hook written in
// Python takes the GIL back for its own call. Any thread may call SandboxSession.cancel().
// Commands run on the calling thread. Ctrl-C: Python runs signal handlers only in the main thread, and only
// between bytecodes; while a command started from the main thread runs, a SIGINT that Python's own C handler
// trips (a real one, or _thread.interrupt_main()) cancels the session through the signal watch below, and the
// Python handler runs once the command has ended (KeyboardInterrupt by default). No handler of ours is
// installed. A SIGINT cancels the command whatever the program's Python handler for it does; the handlers
// of other signals run once the command has ended, as after any long C call.
//
// Object lifetime. A SandboxHook subclass written in Python is held by C++ (the sandbox, its sessions)
// through a shared_ptr that also keeps a reference to the Python object, so its overrides stay reachable
// for as long as C++ may call them. A session keeps its sandbox alive (py::keep_alive).
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <pybind11/chrono.h>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "interp/syntax/analyze.hpp"
#include "python/src/convert.hpp"
#include "sandbox/bashkit_sandbox.hpp"
#include "sandbox/docker_sandbox.hpp"
#include "sandbox/local_sandbox.hpp"
#include "sandbox/mistral_sandbox.hpp"

#ifndef BASHKIT_VERSION
#define BASHKIT_VERSION "0.0.0"
#endif

namespace bashkit::python {
namespace {

using namespace pybind11::literals;
using namespace bashkit::sandbox;
using nlohmann::json;

// ------------------------------------------------------------------------------------------ threads

unsigned long g_main_thread = 0;
constexpr auto kCancelAgain = std::chrono::milliseconds(50);

// Ctrl-C while a command runs on the main thread. Python's C-level handler stays in place: it trips the
// signal and writes the signal's number to the interpreter's "wakeup fd". From the first main-thread command
// on, that fd is this watch's pipe (signal.set_wakeup_fd; its C counterpart is not exported), and the watch's
// thread, blocked reading the pipe, passes each byte on to the program's own wakeup fd (asyncio's, when set)
// and, for SIGINT during a command, cancels the session, again every 50 ms until the command ends (a cancel
// that comes before the command has started is not kept). This covers a real signal and _thread.interrupt_main() alike (both go through the trip). The
// Python handler itself runs once the command has returned (PyErr_CheckSignals), raising KeyboardInterrupt.
// Until this watch, a main-thread command was handed to a worker thread so that the main thread could poll
// for signals: that hop cost 5 us of a warm execute("true") on an idle machine and hundreds of us on a
// loaded one.
class SignalWatch {
public:
    // nullptr when the pipe or the thread cannot be made: commands then run without the watch.
    static SignalWatch* instance() {
        static const bool registered = [] {
            // A forked child has no watch thread: it starts its own.
            pthread_atfork(nullptr, nullptr, [] { current() = nullptr; });
            return true;
        }();
        (void)registered;
        if (!current()) current() = make();  // never destroyed: the thread reads the pipe until exit
        return current();
    }
    // Main thread, GIL held. Throws what set_wakeup_fd raises.
    void begin(SandboxSession* s) {
        // The pipe stays the wakeup fd between commands (the watch passes every byte on). The program may
        // have set its own fd since the last command (asyncio does): then that one becomes the fd bytes are
        // passed on to. set_wakeup_fd costs two system calls, a few microseconds, so a command that follows
        // the last one within 100 ms (a script's loop of executes) does not put the pipe back.
        auto now = std::chrono::steady_clock::now();
        if (!installed_ || now - last_end_ >= kReinstall) {
            int old = set_wakeup_fd()(write_fd_).cast<int>();
            if (old != write_fd_) forward_.store(old);
            installed_ = true;
        }
        std::lock_guard lock(mu_);
        session_ = s;
        ++generation_;
    }
    // Main thread; throws nothing.
    void end() noexcept {
        last_end_ = std::chrono::steady_clock::now();
        try {
            std::lock_guard lock(mu_);
            session_ = nullptr;
            cv_.notify_all();
        } catch (...) {
        }
    }

private:
    SignalWatch(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
    static py::object& set_wakeup_fd() {
        static auto* f = new py::object(py::module_::import("signal").attr("set_wakeup_fd"));  // kept to the end
        return *f;
    }
    static SignalWatch*& current() {
        static SignalWatch* w = nullptr;
        return w;
    }
    static SignalWatch* make() {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) return nullptr;
        // The signal handler must never block on a full pipe.
        if (fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK) != 0) {
            close(fds[0]);
            close(fds[1]);
            return nullptr;
        }
        auto* w = new SignalWatch(fds[0], fds[1]);
        try {
            std::thread([w] { w->loop(); }).detach();
        } catch (...) {
            close(fds[0]);
            close(fds[1]);
            delete w;
            return nullptr;
        }
        return w;
    }
    // A thread entry: nothing it calls throws but the locks, which end it.
    void loop() noexcept {
        try {
            unsigned char buf[64];
            for (;;) {
                ssize_t n = read(read_fd_, buf, sizeof buf);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) return;
                if (int fwd = forward_.load(); fwd >= 0) (void)!write(fwd, buf, static_cast<size_t>(n));
                if (std::find(buf, buf + n, static_cast<unsigned char>(SIGINT)) == buf + n) continue;
                std::unique_lock lock(mu_);
                const uint64_t gen = generation_;
                while (session_ && generation_ == gen) {
                    session_->cancel();
                    cv_.wait_for(lock, kCancelAgain);
                }
            }
        } catch (...) {
        }
    }
    static constexpr auto kReinstall = std::chrono::milliseconds(100);
    bool installed_ = false;                            // main thread only
    std::chrono::steady_clock::time_point last_end_{};  // main thread only
    const int read_fd_;
    const int write_fd_;
    std::atomic<int> forward_{-1};  // the program's own wakeup fd, -1 for none
    std::mutex mu_;
    std::condition_variable cv_;
    SandboxSession* session_ = nullptr;  // the main thread's command's session, under mu_
    uint64_t generation_ = 0;            // one more per command, under mu_
};

// Runs f with the GIL released, on the calling thread; on the main thread, with the Ctrl-C watch above.
template <class F>
auto run_released(SandboxSession& s, F f) -> decltype(f()) {
    SignalWatch* watch = PyThread_get_thread_ident() == g_main_thread ? SignalWatch::instance() : nullptr;
    if (!watch) {
        py::gil_scoped_release release;
        return f();
    }
    watch->begin(&s);
    struct Watching {
        SignalWatch* w;
        ~Watching() { w->end(); }
    } watching{watch};
    auto after = [] {
        // A signal that came during the command: its Python handler runs now (KeyboardInterrupt for SIGINT).
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    };
    if constexpr (std::is_void_v<decltype(f())>) {
        {
            py::gil_scoped_release release;
            f();
        }
        after();
    } else {
        auto result = [&] {
            py::gil_scoped_release release;
            return f();
        }();
        after();
        return result;
    }
}

bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
}

// ------------------------------------------------------------------------------- custom commands

// A Python object C++ keeps (a command function, an output callback): released with the GIL held, or left
// alone when the interpreter is gone.
std::shared_ptr<py::object> keep(py::object o) {
    return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
        if (Py_IsInitialized() && !finalizing()) {
            py::gil_scoped_acquire gil;
            delete p;
        }
    });
}

// What a custom command's Python function receives: the command's argv, cwd, exported environment, stdin,
// stdout, stderr and the session's files. Valid only during the call (afterwards every use raises).
struct PyCommandContext {
    interp::CommandContext* ctx = nullptr;
    interp::CommandContext& get() const {
        if (!ctx) throw SandboxError("CommandContext: the command has returned; the context is no longer valid");
        return *ctx;
    }
};

// Reads stdin with the GIL released: n bytes at most, or everything when n < 0.
std::string read_input(interp::CommandContext& c, long long n) {
    py::gil_scoped_release release;
    std::string out;
    char buf[65536];
    while (n < 0 || static_cast<long long>(out.size()) < n) {
        size_t want = sizeof buf;
        if (n >= 0) want = std::min<size_t>(want, static_cast<size_t>(n - static_cast<long long>(out.size())));
        auto r = c.in.read(buf, want);
        if (!r.ok() || r.n == 0) break;
        out.append(buf, r.n);
    }
    return out;
}

std::string bytes_of(py::handle data) {
    if (py::isinstance<py::bytes>(data)) return data.cast<std::string>();
    if (py::isinstance<py::str>(data)) return data.cast<std::string>();
    throw py::type_error("expected str or bytes");
}

// A Python function as a CommandFn: called with the GIL and a PyCommandContext; its result is the exit
// status (None is 0). An exception becomes "NAME: ExceptionType: message" on stderr and status 1.
interp::CommandFn command_fn(const std::string& name, py::function fn) {
    auto held = keep(std::move(fn));
    return [name, held](interp::CommandContext& ctx) -> int {
        py::gil_scoped_acquire gil;
        PyCommandContext pc{&ctx};
        py::object handle = py::cast(&pc, py::return_value_policy::reference);
        int status = 0;
        try {
            py::object r = (*held)(handle);
            status = r.is_none() ? 0 : r.cast<int>();
        } catch (py::error_already_set& e) {
            std::string msg = name + ": " + std::string(py::str(e.type().attr("__name__"))) + ": " +
                              std::string(py::str(e.value())) + "\n";
            (void)ctx.err.write(msg);
            status = 1;
        } catch (const py::cast_error&) {
            (void)ctx.err.write(name + ": the command function must return an int or None\n");
            status = 1;
        }
        pc.ctx = nullptr;
        return status;
    };
}

// Output callbacks calling Python functions (with the GIL; an exception is reported as unraisable).
interp::OutputCallbacks output_callbacks(py::object on_stdout, py::object on_stderr) {
    interp::OutputCallbacks cb;
    auto wrap = [](py::object f) -> std::function<void(std::string_view)> {
        if (f.is_none()) return {};
        auto held = keep(std::move(f));
        return [held](std::string_view chunk) {
            py::gil_scoped_acquire gil;
            try {
                (*held)(text(std::string(chunk)));
            } catch (py::error_already_set& e) {
                e.discard_as_unraisable("bashkit output callback");
            }
        };
    };
    cb.on_stdout = wrap(std::move(on_stdout));
    cb.on_stderr = wrap(std::move(on_stderr));
    return cb;
}

// ------------------------------------------------------------------------------------------ hooks

// A hook as C++ holds it: the C++ object plus a reference to its Python object (released with the GIL).
std::shared_ptr<SandboxHook> hook_from(py::handle o) {
    if (!py::isinstance<SandboxHook>(o))
        throw py::type_error("hooks: expected SandboxHook instances, got " +
                             std::string(py::str(py::type::of(o).attr("__name__"))));
    auto holder = o.cast<std::shared_ptr<SandboxHook>>();
    auto* ref = new py::object(py::reinterpret_borrow<py::object>(o));
    return std::shared_ptr<SandboxHook>(holder.get(), [holder, ref](SandboxHook*) mutable {
        if (Py_IsInitialized() && !finalizing()) {
            py::gil_scoped_acquire gil;
            delete ref;
        }  // else: the interpreter is gone; the reference is left as it is
        holder.reset();
    });
}

std::vector<std::shared_ptr<SandboxHook>> hooks_from(py::handle o) {
    std::vector<std::shared_ptr<SandboxHook>> out;
    if (o.is_none()) return out;
    for (py::handle h : o) out.push_back(hook_from(h));
    return out;
}

// The trampoline: a Python subclass overrides any of type_name, on_create, on_destroy, to_unified_state.
// Defaults for Python subclasses: type_name is the class name, to_unified_state is {"type": type_name()}.
class PyHook : public SandboxHook {
public:
    std::string type_name() const override {
        py::gil_scoped_acquire gil;
        if (py::function f = py::get_override(static_cast<const SandboxHook*>(this), "type_name"))
            return f().cast<std::string>();
        py::object self = py::cast(static_cast<const SandboxHook*>(this), py::return_value_policy::reference);
        return py::type::of(self).attr("__name__").cast<std::string>();
    }
    void on_create(SandboxSession& ctx) override { call("on_create", ctx); }
    void on_destroy(SandboxSession& ctx) override { call("on_destroy", ctx); }
    json to_unified_state() const override {
        {
            py::gil_scoped_acquire gil;
            if (py::function f = py::get_override(static_cast<const SandboxHook*>(this), "to_unified_state"))
                return to_json(f());
        }
        return {{"type", type_name()}};
    }

private:
    void call(const char* name, SandboxSession& ctx) {
        py::gil_scoped_acquire gil;
        if (py::function f = py::get_override(static_cast<const SandboxHook*>(this), name))
            f(py::cast(&ctx, py::return_value_policy::reference));
    }
};

// ------------------------------------------------------------------------------------------ options

std::optional<SandboxAccess> access_from(py::handle o) {
    if (o.is_none()) return std::nullopt;
    if (py::isinstance<SandboxAccess>(o)) return o.cast<SandboxAccess>();
    if (py::isinstance<py::str>(o)) {
        auto s = o.cast<std::string>();
        if (auto a = parse_access(s)) return a;
        throw py::value_error("access: expected 'none', 'files' or 'full', got '" + s + "'");
    }
    throw py::type_error("access: expected a SandboxAccess, a str or None");
}

AnyHeaderBinding binding_from(py::handle o) {
    if (py::isinstance<HeaderBinding>(o)) return o.cast<HeaderBinding>();
    if (py::isinstance<GitHubBinding>(o)) return o.cast<GitHubBinding>();
    if (py::isinstance<MistralApiBinding>(o)) return o.cast<MistralApiBinding>();
    throw py::type_error("header_bindings: expected HeaderBinding, GitHubBinding or MistralApiBinding, got " +
                         std::string(py::str(py::type::of(o).attr("__name__"))));
}

WorkspaceHeaderBindings bindings_from(py::handle o) {
    if (o.is_none()) return {};
    if (py::isinstance<WorkspaceHeaderBindings>(o)) return o.cast<WorkspaceHeaderBindings>();
    std::vector<AnyHeaderBinding> v;
    for (py::handle b : o) v.push_back(binding_from(b));
    return WorkspaceHeaderBindings(std::move(v));
}

std::string host_entry(const net::HostPort& hp) {
    if (hp.port == 443) return hp.host;
    std::string h = hp.host.find(':') != std::string::npos ? "[" + hp.host + "]" : hp.host;
    return h + ":" + std::to_string(hp.port);
}

std::vector<std::string> host_entries(const Network& n) {
    std::vector<std::string> out;
    for (const auto& hp : n.hosts()) out.push_back(host_entry(hp));
    return out;
}

std::string py_repr(py::handle o) { return py::repr(o).cast<std::string>(); }

std::string list_repr(const std::vector<std::string>& v) {
    py::list l;
    for (const auto& s : v) l.append(text(s));
    return py_repr(l);
}

std::string network_repr(const Network& n) {
    switch (n.kind()) {
        case Network::Kind::None: return "Network.none()";
        case Network::Kind::All: return "Network.all()";
        case Network::Kind::Allow: return "Network.allow(hosts=" + list_repr(host_entries(n)) + ")";
    }
    return "Network()";
}

// ------------------------------------------------------------------------------------------ plain structs

// A struct bound field by field, constructed with keyword arguments only (like C++ designated initializers:
// the fields not given keep their defaults), with __repr__ (secret fields hidden) and __eq__.
template <class T>
class Fields {
public:
    Fields(py::module_& m, const char* name, const char* doc) : cls_(m, name, doc), name_(name) {}

    template <class M>
    Fields& field(const char* name, M T::*member, bool secret = false) {
        cls_.def_readwrite(name, member);
        names_.push_back(name);
        if (secret) secret_.insert(name);
        return *this;
    }
    py::class_<T>& done() {
        auto names = names_;
        auto secret = secret_;
        std::string type = name_;
        cls_.def(py::init([names, type](const py::kwargs& kw) {
            py::object o = py::cast(T{});
            for (auto [k, v] : kw) {
                auto key = py::cast<std::string>(k);
                if (std::find(names.begin(), names.end(), key) == names.end())
                    throw py::type_error(type + "() got an unexpected keyword argument '" + key + "'");
                o.attr(k) = v;
            }
            return py::cast<T>(o);
        }));
        cls_.def("__repr__", [names, secret, type](py::object self) {
            std::string s = type + "(";
            for (size_t i = 0; i < names.size(); ++i) {
                py::object v = self.attr(names[i].c_str());
                bool hide = secret.count(names[i]) && py::len(py::str(v)) > 0;
                s += (i ? ", " : "") + names[i] + "=" + (hide ? std::string("'***'") : py_repr(v));
            }
            return s + ")";
        });
        cls_.def("__eq__", [names](py::object self, py::object other) -> py::object {
            if (!py::type::of(self).is(py::type::of(other))) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            for (const auto& n : names)
                if (!self.attr(n.c_str()).equal(other.attr(n.c_str()))) return py::bool_(false);
            return py::bool_(true);
        });
        cls_.attr("__hash__") = py::none();
        return cls_;
    }

private:
    py::class_<T> cls_;
    std::string name_;
    std::vector<std::string> names_;
    std::set<std::string> secret_;
};

py::list tool_list(const std::vector<ToolSpec>& tools) {
    py::list l;
    for (const auto& t : tools) l.append(py::cast(t));
    return l;
}

// ------------------------------------------------------------------------------------------ the module

void bind_types(py::module_& m) {
    py::register_exception<SandboxError>(m, "SandboxError", PyExc_RuntimeError);

    py::enum_<SandboxAccess> access(m, "SandboxAccess", "What an agent may do: nothing, the file tools, or those and bash.");
    access.value("none", SandboxAccess::none).value("files", SandboxAccess::files).value("full", SandboxAccess::full);
    // str() is the C++ to_string ("files"). Assigned, not def()'d: pybind11's own __str__ would become an
    // overload sibling of it.
    access.attr("__str__") = py::cpp_function([](SandboxAccess a) { return std::string(to_string(a)); },
                                              py::name("__str__"), py::is_method(access));

    py::class_<SandboxExecutionResult>(m, "SandboxExecutionResult", "The outcome of one execute().")
        .def(py::init([](int exit_code, const std::string& out, const std::string& err, bool timed_out, bool cancelled,
                         bool truncated) {
                 return SandboxExecutionResult{exit_code, out, err, timed_out, cancelled, truncated};
             }),
             "exit_code"_a, "stdout"_a, "stderr"_a, py::kw_only(), "timed_out"_a = false, "cancelled"_a = false,
             "truncated"_a = false)
        .def_readwrite("exit_code", &SandboxExecutionResult::exit_code)
        .def_property_readonly("stdout", [](const SandboxExecutionResult& r) { return text(r.stdout_); })
        .def_property_readonly("stderr", [](const SandboxExecutionResult& r) { return text(r.stderr_); })
        .def_property_readonly("stdout_bytes", [](const SandboxExecutionResult& r) { return py::bytes(r.stdout_); })
        .def_property_readonly("stderr_bytes", [](const SandboxExecutionResult& r) { return py::bytes(r.stderr_); })
        .def_readwrite("timed_out", &SandboxExecutionResult::timed_out)
        .def_readwrite("cancelled", &SandboxExecutionResult::cancelled)
        .def_readwrite("truncated", &SandboxExecutionResult::truncated)
        .def("__eq__", [](const SandboxExecutionResult& a, const SandboxExecutionResult& b) {
            return a.exit_code == b.exit_code && a.stdout_ == b.stdout_ && a.stderr_ == b.stderr_ &&
                   a.timed_out == b.timed_out && a.cancelled == b.cancelled && a.truncated == b.truncated;
        })
        // cancelled and truncated (additions after timed_out) are shown only when set.
        .def("__repr__", [](const SandboxExecutionResult& r) {
            return "SandboxExecutionResult(exit_code=" + std::to_string(r.exit_code) + ", stdout=" +
                   py_repr(text(r.stdout_)) + ", stderr=" + py_repr(text(r.stderr_)) +
                   ", timed_out=" + (r.timed_out ? "True" : "False") + (r.cancelled ? ", cancelled=True" : "") +
                   (r.truncated ? ", truncated=True" : "") + ")";
        })
        .attr("__hash__") = py::none();

    py::class_<Network>(m, "Network", "Where scripts may connect: none(), all() or allow(hosts=[...]) (HTTPS, exact hosts).")
        .def_static("none", &Network::none)
        .def_static("all", &Network::all)
        .def_static("allow", &Network::allow, "hosts"_a)
        .def_property_readonly("kind", [](const Network& n) { return std::string(network_kind_name(n.kind())); })
        .def_property_readonly("hosts", &host_entries)
        .def("reaches", &Network::reaches, "host"_a)
        .def("describe", &Network::describe)
        .def("__eq__", [](const Network& a, const Network& b) { return a.kind() == b.kind() && a.hosts() == b.hosts(); })
        .def("__repr__", &network_repr)
        .attr("__hash__") = py::none();

    py::class_<EgressPolicy>(m, "EgressPolicy", "Where a remote sandbox's processes may connect, as IP prefixes.")
        .def_static("block_all", &EgressPolicy::block_all)
        .def_static("allow_all", &EgressPolicy::allow_all)
        .def_static("custom", &EgressPolicy::custom, "allow_cidrs"_a)
        .def_static("from_network", &EgressPolicy::from_network, "network"_a)
        .def_property_readonly("kind", [](const EgressPolicy& e) {
            switch (e.kind()) {
                case EgressPolicy::Kind::block_all: return "block_all";
                case EgressPolicy::Kind::allow_all: return "allow_all";
                case EgressPolicy::Kind::custom: return "custom";
            }
            return "";
        })
        .def_property_readonly("allow_cidrs", &EgressPolicy::allow_cidrs)
        .def("describe", &EgressPolicy::describe)
        .def("__eq__", [](const EgressPolicy& a, const EgressPolicy& b) { return a == b; })
        .def("__repr__", [](const EgressPolicy& e) {
            switch (e.kind()) {
                case EgressPolicy::Kind::block_all: return std::string("EgressPolicy.block_all()");
                case EgressPolicy::Kind::allow_all: return std::string("EgressPolicy.allow_all()");
                case EgressPolicy::Kind::custom: break;
            }
            return "EgressPolicy.custom(allow_cidrs=" + list_repr(e.allow_cidrs()) + ")";
        })
        .attr("__hash__") = py::none();

    Fields<HeaderBinding>(m, "HeaderBinding", "A secret header added on the wire for a host (and path prefix).")
        .field("host", &HeaderBinding::host)
        .field("header", &HeaderBinding::header)
        .field("value", &HeaderBinding::value, true)
        .field("path_prefix", &HeaderBinding::path_prefix)
        .field("prefix", &HeaderBinding::prefix)
        .field("suffix", &HeaderBinding::suffix)
        .field("secret_name", &HeaderBinding::secret_name)
        .done();
    Fields<GitHubBinding>(m, "GitHubBinding", "GitHub access for the given repositories ('owner/name').")
        .field("repos", &GitHubBinding::repos)
        .field("ttl_seconds", &GitHubBinding::ttl_seconds)
        .field("host", &GitHubBinding::host)
        .field("token", &GitHubBinding::token, true)
        .field("all_repos", &GitHubBinding::all_repos)
        .done();
    Fields<MistralApiBinding>(m, "MistralApiBinding", "The Mistral API with 'Authorization: Bearer KEY'.")
        .field("ttl_seconds", &MistralApiBinding::ttl_seconds)
        .field("api_key", &MistralApiBinding::api_key, true)
        .done();

    m.def("binding_kind", [](py::handle b) { return std::string(binding_kind(binding_from(b))); }, "binding"_a);

    py::class_<WorkspaceHeaderBindings>(m, "WorkspaceHeaderBindings", "The header bindings of a sandbox.")
        .def(py::init([](py::object bindings) { return bindings_from(bindings); }), "bindings"_a = py::none())
        .def("add", [](WorkspaceHeaderBindings& w, py::handle b) { w.add(binding_from(b)); }, "binding"_a)
        .def("empty", &WorkspaceHeaderBindings::empty)
        .def_property_readonly("bindings", [](const WorkspaceHeaderBindings& w) {
            py::list l;
            for (const auto& b : w.bindings()) std::visit([&](const auto& v) { l.append(py::cast(v)); }, b);
            return l;
        })
        .def("validate", &WorkspaceHeaderBindings::validate)
        .def("__len__", [](const WorkspaceHeaderBindings& w) { return w.bindings().size(); })
        .def("__iter__", [](py::object self) { return self.attr("bindings").attr("__iter__")(); })
        .def("__repr__", [](py::object self) { return "WorkspaceHeaderBindings(" + py_repr(self.attr("bindings")) + ")"; });

    Fields<interp::ExecutionLimits>(m, "ExecutionLimits", "The interpreter's limits (interp/limits.hpp).")
        .field("timeout", &interp::ExecutionLimits::timeout)
        .field("max_output_bytes", &interp::ExecutionLimits::max_output_bytes)
        .field("max_call_depth", &interp::ExecutionLimits::max_call_depth)
        .field("max_subshell_depth", &interp::ExecutionLimits::max_subshell_depth)
        .field("max_eval_depth", &interp::ExecutionLimits::max_eval_depth)
        .field("max_memory_bytes", &interp::ExecutionLimits::max_memory_bytes)
        .field("max_variable_bytes", &interp::ExecutionLimits::max_variable_bytes)
        .field("max_total_variable_bytes", &interp::ExecutionLimits::max_total_variable_bytes)
        .field("max_array_entries", &interp::ExecutionLimits::max_array_entries)
        .field("max_background_jobs", &interp::ExecutionLimits::max_background_jobs)
        .field("max_threads", &interp::ExecutionLimits::max_threads)
        .field("max_loop_iterations", &interp::ExecutionLimits::max_loop_iterations)
        .field("max_printf_width", &interp::ExecutionLimits::max_printf_width)
        .field("eval_stack_bytes", &interp::ExecutionLimits::eval_stack_bytes)
        .field("stage_stack_bytes", &interp::ExecutionLimits::stage_stack_bytes)
        .done();
    Fields<vfs::FsLimits>(m, "FsLimits", "Limits of a session's file tree (vfs/limited_fs.hpp).")
        .field("max_total_bytes", &vfs::FsLimits::max_total_bytes)
        .field("max_file_bytes", &vfs::FsLimits::max_file_bytes)
        .field("max_nodes", &vfs::FsLimits::max_nodes)
        .field("max_path_length", &vfs::FsLimits::max_path_length)
        .field("max_name_length", &vfs::FsLimits::max_name_length)
        .field("max_depth", &vfs::FsLimits::max_depth)
        .field("max_open_files", &vfs::FsLimits::max_open_files)
        .done()
        .def_static("unlimited", &vfs::FsLimits::unlimited);

    Fields<ProcessOptions>(m, "ProcessOptions", "One host program to run (what a LocalDockerSandbox runner gets).")
        .field("argv", &ProcessOptions::argv)
        .field("cwd", &ProcessOptions::cwd)
        .field("stdin_data", &ProcessOptions::stdin_data)
        .field("timeout_seconds", &ProcessOptions::timeout_seconds)
        .field("kill_grace_seconds", &ProcessOptions::kill_grace_seconds)
        .field("max_output_bytes", &ProcessOptions::max_output_bytes)
        .done();
    Fields<ProcessResult>(m, "ProcessResult", "What a host program did (what a LocalDockerSandbox runner returns).")
        .field("exit_code", &ProcessResult::exit_code)
        .field("out", &ProcessResult::out)
        .field("err", &ProcessResult::err)
        .field("timed_out", &ProcessResult::timed_out)
        .field("started", &ProcessResult::started)
        .done();
    m.def("run_process", [](const ProcessOptions& o) {
        py::gil_scoped_release release;
        return run_process(o);
    }, "options"_a, "Runs a host program in a process group of its own (the default LocalDockerSandbox runner).");
}

void bind_hooks(py::module_& m) {
    py::class_<SandboxHook, PyHook, std::shared_ptr<SandboxHook>>(m, "SandboxHook",
        "Code a session runs when it opens (on_create) and closes (on_destroy). Subclass it in Python.")
        .def(py::init<>())
        .def("type_name", &SandboxHook::type_name)
        .def("on_create", &SandboxHook::on_create, "ctx"_a)
        .def("on_destroy", &SandboxHook::on_destroy, "ctx"_a)
        .def("to_unified_state", [](const SandboxHook& h) { return to_python(h.to_unified_state()); })
        .def_static("from_unified_state", [](py::handle state) { return SandboxHook::from_unified_state(to_json(state)); },
                    "state"_a)
        .def_static("register_type", [](const std::string& type_name, py::function factory) {
            // Kept for the life of the process: the registry is a C++ static that outlives the interpreter.
            PyObject* f = factory.inc_ref().ptr();
            SandboxHook::register_type(type_name, [f](const json& state) {
                py::gil_scoped_acquire gil;
                py::object hook = py::reinterpret_borrow<py::object>(f)(to_python(state));
                return hook_from(hook);
            });
        }, "type_name"_a, "factory"_a)
        .def_static("registered_types", &SandboxHook::registered_types);

    py::class_<GitIdentity, SandboxHook, std::shared_ptr<GitIdentity>>(m, "GitIdentity",
        "`git config --global user.name/user.email` when a session opens.")
        .def(py::init<std::string, std::string>(), "name"_a, "email"_a)
        .def_property_readonly("name", &GitIdentity::name)
        .def_property_readonly("email", &GitIdentity::email)
        .def_static("from_state", [](py::handle state) { return GitIdentity::from_state(to_json(state)); }, "state"_a)
        .def("__repr__", [](const GitIdentity& g) {
            return "GitIdentity(name=" + py_repr(text(g.name())) + ", email=" + py_repr(text(g.email())) + ")";
        });
}

void bind_sessions(py::module_& m) {
    py::class_<ToolSpec>(m, "ToolSpec", "A tool for the model: name, description, JSON Schema of its arguments.")
        .def_readonly("name", &ToolSpec::name)
        .def_readonly("description", &ToolSpec::description)
        .def_property_readonly("parameters", [](const ToolSpec& t) { return to_python(t.parameters); })
        .def("to_json", [](const ToolSpec& t, bool strict) { return to_python(t.to_json(strict)); }, py::kw_only(),
             "strict"_a = false)
        .def("__repr__", [](const ToolSpec& t) { return "ToolSpec(name=" + py_repr(text(t.name)) + ")"; });
    m.def("tools_for", [](py::handle access, bool background) {
        auto a = access_from(access);
        if (!a) throw py::value_error("tools_for: access must not be None");
        return tool_list(tools_for(*a, background));
    }, "access"_a, "background_processes"_a = false);

    py::class_<PyCommandContext>(m, "CommandContext",
                                 "What a custom command's function receives; valid only during the call.")
        .def_property_readonly("argv", [](const PyCommandContext& c) { return c.get().argv; })
        .def_property_readonly("cwd", [](const PyCommandContext& c) { return c.get().cwd; })
        .def_property_readonly("env", [](const PyCommandContext& c) {
            py::dict d;
            for (const auto& [k, v] : c.get().env.entries()) d[text(k)] = text(v);
            return d;
        })
        .def("read", [](const PyCommandContext& c, long long n) { return py::bytes(read_input(c.get(), n)); },
             "n"_a = -1)
        .def("read_text", [](const PyCommandContext& c) { return text(read_input(c.get(), -1)); })
        .def("write", [](const PyCommandContext& c, py::handle data) {
            std::string d = bytes_of(data);
            py::gil_scoped_release release;
            return c.get().out.write(d).ok();
        }, "data"_a)
        .def("write_err", [](const PyCommandContext& c, py::handle data) {
            std::string d = bytes_of(data);
            py::gil_scoped_release release;
            return c.get().err.write(d).ok();
        }, "data"_a)
        .def("read_file", [](const PyCommandContext& c, const std::string& path) {
            auto r = c.get().fs.read_file(c.get().resolve(path));
            if (!r) throw SandboxError(path + ": " + std::string(vfs::error_message(r.error())));
            return py::bytes(*r);
        }, "path"_a)
        .def("write_file", [](const PyCommandContext& c, const std::string& path, py::handle data) {
            auto r = c.get().fs.write_file(c.get().resolve(path), bytes_of(data));
            if (!r) throw SandboxError(path + ": " + std::string(vfs::error_message(r.error())));
        }, "path"_a, "data"_a)
        .def_property_readonly("cancelled", [](const PyCommandContext& c) { return c.get().cancel.cancelled(); });

    py::class_<SandboxSession>(m, "SandboxSession",
        "One live session. Use as a context manager: `with sandbox.session('s1') as s:` opens and closes it.")
        .def_property_readonly("id", &SandboxSession::id)
        .def_property_readonly("sandbox_type", &SandboxSession::sandbox_type)
        .def_property_readonly("access", &SandboxSession::access)
        .def_property_readonly("is_open", &SandboxSession::is_open)
        .def_property_readonly("location", [](const SandboxSession& s) { return text(s.location()); })
        .def("open", [](SandboxSession& s) { run_released(s, [&] { s.open(); }); })
        .def("close", [](SandboxSession& s) {
            py::gil_scoped_release release;
            s.close();
        })
        .def("__enter__", [](py::object self) {
            auto& s = self.cast<SandboxSession&>();
            run_released(s, [&] { s.open(); });
            return self;
        })
        .def("__exit__", [](SandboxSession& s, py::args) {
            py::gil_scoped_release release;
            s.close();
            return false;
        })
        .def("execute", [](SandboxSession& s, const std::string& command, std::optional<double> timeout_seconds,
                           py::object on_stdout, py::object on_stderr) {
            if (on_stdout.is_none() && on_stderr.is_none())
                return run_released(s, [&] { return s.execute(command, timeout_seconds); });
            auto cb = output_callbacks(std::move(on_stdout), std::move(on_stderr));
            return run_released(s, [&] { return s.execute(command, timeout_seconds, cb); });
        }, "command"_a, "timeout_seconds"_a = py::none(), py::kw_only(), "on_stdout"_a = py::none(),
           "on_stderr"_a = py::none())
        .def("add_command", [](SandboxSession& s, const std::string& name, py::function fn, const std::string& help,
                               bool replace) {
            CustomCommand c{name, help.empty() ? name + ": a custom command" : help, command_fn(name, std::move(fn)),
                            replace};
            try {
                run_released(s, [&] { s.add_command(c); });
            } catch (const std::invalid_argument& e) {
                throw py::value_error(e.what());
            }
        }, "name"_a, "fn"_a, py::kw_only(), "help"_a = "", "replace"_a = false)
        .def("save_state", [](SandboxSession& s) { return run_released(s, [&] { return s.save_state(); }); })
        .def("restore_state", [](SandboxSession& s, const std::string& snapshot) {
            run_released(s, [&] { s.restore_state(snapshot); });
        }, "snapshot"_a)
        .def("cancel", [](SandboxSession& s) { return s.cancel(); })
        .def("read_file", [](SandboxSession& s, const std::string& path) {
            std::string data = run_released(s, [&] { return s.read_file(path); });
            return text(data);
        }, "path"_a)
        .def("read_file_bytes", [](SandboxSession& s, const std::string& path) {
            std::string data = run_released(s, [&] { return s.read_file(path); });
            return py::bytes(data);
        }, "path"_a)
        .def("write_file", [](SandboxSession& s, const std::string& path, py::handle content) {
            std::string data;
            if (PyBytes_Check(content.ptr())) data = content.cast<py::bytes>();
            else if (PyUnicode_Check(content.ptr())) data = content.cast<std::string>();
            else throw py::type_error("write_file: content must be str or bytes");
            run_released(s, [&] { s.write_file(path, data); });
        }, "path"_a, "content"_a)
        .def("tools", [](const SandboxSession& s) { return tool_list(s.tools()); })
        .def("call_tool", [](SandboxSession& s, const std::string& name, py::handle args) {
            json a = args.is_none() ? json::object() : to_json(args);
            json r = run_released(s, [&] { return s.call_tool(name, a); });
            return to_python(r);
        }, "name"_a, "args"_a = py::none())
        .def("__repr__", [](const SandboxSession& s) {
            return "<SandboxSession " + s.sandbox_type() + " " + py_repr(text(s.id())) +
                   (s.is_open() ? " open>" : " closed>");
        });
}

template <class Cls>
void bind_common(Cls& cls) {
    cls.def_static("static_attributes", [] { return Cls::type::static_attributes(); });
}

void bind_sandboxes(py::module_& m) {
    py::class_<SandboxAttributes>(m, "SandboxAttributes", "What one sandbox type supports.")
        .def_readonly("type", &SandboxAttributes::type)
        .def_property_readonly("supported_network", [](const SandboxAttributes& a) {
            std::vector<std::string> v;
            for (auto k : a.supported_network) v.emplace_back(network_kind_name(k));
            return v;
        })
        .def_readonly("supported_header_bindings", &SandboxAttributes::supported_header_bindings)
        .def_readonly("supported_access", &SandboxAttributes::supported_access)
        .def_readonly("delete_on_cleanup", &SandboxAttributes::delete_on_cleanup)
        .def_readonly("supports_background_processes", &SandboxAttributes::supports_background_processes)
        .def("__repr__", [](const SandboxAttributes& a) { return "<SandboxAttributes " + a.type + ">"; });

    py::class_<Sandbox>(m, "Sandbox", "The base of every sandbox type.")
        .def_property_readonly("attributes", &Sandbox::attributes)
        .def_property_readonly("type_name", &Sandbox::type_name)
        .def_property_readonly("supported_network", [](const Sandbox& s) {
            std::vector<std::string> v;
            for (auto k : s.supported_network()) v.emplace_back(network_kind_name(k));
            return v;
        })
        .def_property_readonly("supported_header_bindings", &Sandbox::supported_header_bindings)
        .def_property_readonly("supported_access", &Sandbox::supported_access)
        .def_property_readonly("delete_on_cleanup", &Sandbox::delete_on_cleanup)
        .def_property_readonly("supports_background_processes", &Sandbox::supports_background_processes)
        .def_property_readonly("network", &Sandbox::network)
        .def_property_readonly("header_bindings", &Sandbox::header_bindings)
        .def_property_readonly("hooks", &Sandbox::hooks)
        .def_property_readonly("access", &Sandbox::access)
        .def("session", [](Sandbox& s, const std::string& id) { return s.session(id); }, "session_id"_a = "",
             py::keep_alive<0, 1>())
        .def("open", [](Sandbox& sb, const std::string& id) {
            // Made first, then opened, so hooks get the same Python object that is returned.
            auto owned = std::make_unique<SandboxSession>(sb.session(id));
            SandboxSession& s = *owned;
            py::object session = py::cast(std::move(owned));
            run_released(s, [&] { s.open(); });
            return session;
        }, "session_id"_a = "", py::keep_alive<0, 1>())
        .def("tools", [](const Sandbox& s) { return tool_list(s.tools()); })
        .def("__repr__", [](const Sandbox& s) { return "<" + s.type_name() + " network=" + network_repr(s.network()) + ">"; });

    auto bashkit = py::class_<BashkitSandbox, Sandbox>(m, "BashkitSandbox",
        "This project's in-process interpreter over an on-disk session tree.");
    bashkit
        .def(py::init([](std::string instance_id, const Network& network, bool block_private_ips, py::object header_bindings,
                         py::object hooks, py::object access, double default_exec_timeout_seconds, std::string base_dir,
                         bool ephemeral, std::optional<interp::ExecutionLimits> limits,
                         std::optional<vfs::FsLimits> fs_limits, std::optional<SecretLookup> secrets) {
                 BashkitSandboxOptions o;
                 if (secrets) o.secrets = std::move(*secrets);  // called with the GIL (pybind11's wrapper)
                 o.instance_id = std::move(instance_id);
                 o.network = network;
                 o.block_private_ips = block_private_ips;
                 o.header_bindings = bindings_from(header_bindings);
                 o.hooks = hooks_from(hooks);
                 o.access = access_from(access);
                 o.default_exec_timeout_seconds = default_exec_timeout_seconds;
                 o.base_dir = std::move(base_dir);
                 o.ephemeral = ephemeral;
                 if (limits) o.limits = *limits;
                 if (fs_limits) o.fs_limits = *fs_limits;
                 return std::make_unique<BashkitSandbox>(std::move(o));
             }),
             py::kw_only(), "instance_id"_a = "", "network"_a = Network::none(), "block_private_ips"_a = true,
             "header_bindings"_a = py::none(), "hooks"_a = py::none(), "access"_a = py::none(),
             "default_exec_timeout_seconds"_a = 300.0, "base_dir"_a = "", "ephemeral"_a = false,
             "limits"_a = py::none(), "fs_limits"_a = py::none(), "secrets"_a = py::none())
        .def_property_readonly("instance_id", [](const BashkitSandbox& s) { return s.options().instance_id; })
        .def_property_readonly("block_private_ips", [](const BashkitSandbox& s) { return s.options().block_private_ips; })
        .def_property_readonly("default_exec_timeout_seconds",
                               [](const BashkitSandbox& s) { return s.options().default_exec_timeout_seconds; })
        .def_property_readonly("base_dir", [](const BashkitSandbox& s) { return s.options().base_dir; })
        .def_property_readonly("ephemeral", [](const BashkitSandbox& s) { return s.options().ephemeral; })
        .def_property_readonly("limits", [](const BashkitSandbox& s) { return s.options().limits; })
        .def_property_readonly("fs_limits", [](const BashkitSandbox& s) { return s.options().fs_limits; })
        .def("session_dir", &BashkitSandbox::session_dir, "session_id"_a)
        .def("delete_session", [](BashkitSandbox& s, const std::string& id) {
            py::gil_scoped_release release;
            s.delete_session(id);
        }, "session_id"_a);
    bind_common(bashkit);

    auto none = py::class_<NoSandbox, Sandbox>(m, "NoSandbox", "Runs nothing: for agents without tools.");
    none.def(py::init([](const Network& network, py::object header_bindings, py::object hooks, py::object access) {
                 NoSandboxOptions o;
                 o.network = network;
                 o.header_bindings = bindings_from(header_bindings);
                 o.hooks = hooks_from(hooks);
                 o.access = access_from(access);
                 return std::make_unique<NoSandbox>(std::move(o));
             }),
             py::kw_only(), "network"_a = Network::none(), "header_bindings"_a = py::none(), "hooks"_a = py::none(),
             "access"_a = py::none());
    bind_common(none);

    auto local = py::class_<DangerousLocalSandbox, Sandbox>(m, "DangerousLocalSandbox",
        "The host's own shell in a workspace folder: NO isolation.");
    local
        .def(py::init([](std::string shell, double default_exec_timeout_seconds, std::string workspace,
                         std::optional<bool> delete_on_cleanup, std::optional<Network> network, py::object header_bindings,
                         py::object hooks, py::object access) {
                 DangerousLocalSandboxOptions o;
                 o.shell = std::move(shell);
                 o.default_exec_timeout_seconds = default_exec_timeout_seconds;
                 o.workspace = std::move(workspace);
                 o.delete_on_cleanup = delete_on_cleanup;
                 o.network = std::move(network);
                 o.header_bindings = bindings_from(header_bindings);
                 o.hooks = hooks_from(hooks);
                 o.access = access_from(access);
                 return std::make_unique<DangerousLocalSandbox>(std::move(o));
             }),
             py::kw_only(), "shell"_a = "bash", "default_exec_timeout_seconds"_a = 600.0, "workspace"_a = "",
             "delete_on_cleanup"_a = py::none(), "network"_a = py::none(), "header_bindings"_a = py::none(),
             "hooks"_a = py::none(), "access"_a = py::none())
        .def_property_readonly("shell", [](const DangerousLocalSandbox& s) { return s.options().shell; })
        .def_property_readonly("default_exec_timeout_seconds",
                               [](const DangerousLocalSandbox& s) { return s.options().default_exec_timeout_seconds; })
        .def_property_readonly("workspace", [](const DangerousLocalSandbox& s) { return s.options().workspace; })
        .def_static("default_workspace_base", &DangerousLocalSandbox::default_workspace_base)
        .def_static("check_deletable_workspace", &DangerousLocalSandbox::check_deletable_workspace, "workspace"_a);
    bind_common(local);

    auto docker = py::class_<LocalDockerSandbox, Sandbox>(m, "LocalDockerSandbox",
        "A container of the local docker engine, driven through the docker CLI.");
    docker
        .def(py::init([](std::string image, std::optional<bool> supports_background_processes, std::string shell,
                         double default_exec_timeout_seconds, std::string setup_script,
                         double setup_script_timeout_seconds, const Network& network, py::object header_bindings,
                         py::object hooks, py::object access, std::string docker_cli, std::optional<ProcessRunner> runner) {
                 LocalDockerSandboxOptions o;
                 o.image = std::move(image);
                 o.supports_background_processes = supports_background_processes;
                 o.shell = std::move(shell);
                 o.default_exec_timeout_seconds = default_exec_timeout_seconds;
                 o.setup_script = std::move(setup_script);
                 o.setup_script_timeout_seconds = setup_script_timeout_seconds;
                 o.network = network;
                 o.header_bindings = bindings_from(header_bindings);
                 o.hooks = hooks_from(hooks);
                 o.access = access_from(access);
                 o.docker = std::move(docker_cli);
                 if (runner) o.runner = std::move(*runner);
                 return std::make_unique<LocalDockerSandbox>(std::move(o));
             }),
             py::kw_only(), "image"_a = "python:3.12-bookworm", "supports_background_processes"_a = py::none(),
             "shell"_a = "bash",
             "default_exec_timeout_seconds"_a = 600.0, "setup_script"_a = "", "setup_script_timeout_seconds"_a = 300.0,
             "network"_a = Network::none(), "header_bindings"_a = py::none(), "hooks"_a = py::none(),
             "access"_a = py::none(), "docker"_a = "docker", "runner"_a = py::none())
        .def_property_readonly("image", [](const LocalDockerSandbox& s) { return s.options().image; })
        .def_property_readonly("shell", [](const LocalDockerSandbox& s) { return s.options().shell; })
        .def_property_readonly("default_exec_timeout_seconds",
                               [](const LocalDockerSandbox& s) { return s.options().default_exec_timeout_seconds; })
        .def_property_readonly("setup_script", [](const LocalDockerSandbox& s) { return s.options().setup_script; })
        .def_property_readonly("setup_script_timeout_seconds",
                               [](const LocalDockerSandbox& s) { return s.options().setup_script_timeout_seconds; })
        .def_property_readonly("docker", [](const LocalDockerSandbox& s) { return s.options().docker; })
        .def("info_argv", &LocalDockerSandbox::info_argv)
        .def("run_argv", &LocalDockerSandbox::run_argv, "container_name"_a)
        .def("exec_argv", &LocalDockerSandbox::exec_argv, "container"_a, "command"_a, "timeout_seconds"_a)
        .def("read_argv", &LocalDockerSandbox::read_argv, "container"_a, "path"_a)
        .def("write_argv", &LocalDockerSandbox::write_argv, "container"_a, "path"_a)
        .def("list_argv", &LocalDockerSandbox::list_argv, "container"_a, "path"_a, "recursive"_a)
        .def("rm_argv", &LocalDockerSandbox::rm_argv, "container"_a)
        .def_static("container_name", &LocalDockerSandbox::container_name, "session_id"_a)
        .def_static("format_seconds", &LocalDockerSandbox::format_seconds, "seconds"_a);
    bind_common(docker);

    m.def("random_session_id", &random_session_id);
    m.def("analyze", [](const std::string& script) {
        return to_python(json::parse(syntax::to_json(syntax::analyze(script))));
    }, "script"_a, "What a script may do, without running it (bashkit --analyze): commands, writes, network, eval, "
                   "source, dynamic names, parse errors, as a dict.");
}

// MistralSandbox: every option may be omitted (then the environment, then the default applies), so the
// constructor takes keyword arguments by name: an option passed as None counts as omitted.
template <class T>
void set_optional(std::optional<T>& field, py::handle v) {
    if (v.is_none()) field.reset();
    else field = v.cast<T>();
}

EnvLookup env_from(py::handle env) {
    if (env.is_none()) return {};  // the process environment
    if (PyCallable_Check(env.ptr()) && !PyMapping_Check(env.ptr())) return env.cast<EnvLookup>();
    std::map<std::string, std::string> vars;
    for (auto [k, v] : py::dict(py::reinterpret_borrow<py::object>(env))) vars[py::cast<std::string>(k)] = py::cast<std::string>(v);
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

void bind_mistral(py::module_& m) {
    using S = MistralSandboxSettings;
    Fields<S>(m, "MistralSandboxSettings", "The MistralSandbox options in effect (passed, else environment, else default).")
        .field("image", &S::image)
        .field("endpoint", &S::endpoint)
        .field("api_token", &S::api_token, true)
        .field("instance_type", &S::instance_type)
        .field("region", &S::region)
        .field("name_prefix", &S::name_prefix)
        .field("ttl_seconds", &S::ttl_seconds)
        .field("idle_timeout_seconds", &S::idle_timeout_seconds)
        .field("default_exec_timeout_seconds", &S::default_exec_timeout_seconds)
        .field("privileged", &S::privileged)
        .field("docker_daemon_enabled", &S::docker_daemon_enabled)
        .field("docker_daemon_network_mode", &S::docker_daemon_network_mode)
        .field("enable_light_sleep", &S::enable_light_sleep)
        .field("setup_script", &S::setup_script)
        .field("setup_script_timeout_seconds", &S::setup_script_timeout_seconds)
        .field("readiness_max_retries", &S::readiness_max_retries)
        .field("readiness_interval_seconds", &S::readiness_interval_seconds)
        .field("readiness_probe_timeout_seconds", &S::readiness_probe_timeout_seconds)
        .field("wait_ready_timeout_seconds", &S::wait_ready_timeout_seconds)
        .field("enable_mesh", &S::enable_mesh)
        .field("pre_provisioned_sandbox_id", &S::pre_provisioned_sandbox_id)
        .done();

    auto mistral = py::class_<MistralSandbox, Sandbox>(m, "MistralSandbox",
        "A remote sandbox (Mistral Cloud or `bashkit serve`) over HTTP+JSON; omitted options come from "
        "AGENTS_SDK_KOYEB_SANDBOX_<OPTION> (env: None = the process environment, a mapping, or a callable).");
    mistral
        .def(py::init([](py::object env, const py::kwargs& kw) {
                 using O = MistralSandboxOptions;
                 O o;
                 using Setter = std::function<void(O&, py::handle)>;
                 static const std::map<std::string, Setter> setters = {
                     {"image", [](O& o, py::handle v) { set_optional(o.image, v); }},
                     {"supports_background_processes",
                      [](O& o, py::handle v) { set_optional(o.supports_background_processes, v); }},
                     {"workspace_header_bindings", [](O& o, py::handle v) { o.workspace_header_bindings = v.cast<bool>(); }},
                     {"endpoint", [](O& o, py::handle v) { set_optional(o.endpoint, v); }},
                     {"api_token", [](O& o, py::handle v) { set_optional(o.api_token, v); }},
                     {"instance_type", [](O& o, py::handle v) { set_optional(o.instance_type, v); }},
                     {"region", [](O& o, py::handle v) { set_optional(o.region, v); }},
                     {"name_prefix", [](O& o, py::handle v) { set_optional(o.name_prefix, v); }},
                     {"ttl_seconds", [](O& o, py::handle v) { set_optional(o.ttl_seconds, v); }},
                     {"idle_timeout_seconds", [](O& o, py::handle v) { set_optional(o.idle_timeout_seconds, v); }},
                     {"default_exec_timeout_seconds", [](O& o, py::handle v) { set_optional(o.default_exec_timeout_seconds, v); }},
                     {"privileged", [](O& o, py::handle v) { set_optional(o.privileged, v); }},
                     {"docker_daemon_enabled", [](O& o, py::handle v) { set_optional(o.docker_daemon_enabled, v); }},
                     {"docker_daemon_network_mode", [](O& o, py::handle v) { set_optional(o.docker_daemon_network_mode, v); }},
                     {"enable_light_sleep", [](O& o, py::handle v) { set_optional(o.enable_light_sleep, v); }},
                     {"setup_script", [](O& o, py::handle v) { set_optional(o.setup_script, v); }},
                     {"setup_script_timeout_seconds", [](O& o, py::handle v) { set_optional(o.setup_script_timeout_seconds, v); }},
                     {"readiness_max_retries", [](O& o, py::handle v) { set_optional(o.readiness_max_retries, v); }},
                     {"readiness_interval_seconds", [](O& o, py::handle v) { set_optional(o.readiness_interval_seconds, v); }},
                     {"readiness_probe_timeout_seconds",
                      [](O& o, py::handle v) { set_optional(o.readiness_probe_timeout_seconds, v); }},
                     {"wait_ready_timeout_seconds", [](O& o, py::handle v) { set_optional(o.wait_ready_timeout_seconds, v); }},
                     {"enable_mesh", [](O& o, py::handle v) { set_optional(o.enable_mesh, v); }},
                     {"pre_provisioned_sandbox_id", [](O& o, py::handle v) { set_optional(o.pre_provisioned_sandbox_id, v); }},
                     {"network", [](O& o, py::handle v) { set_optional(o.network, v); }},
                     {"egress", [](O& o, py::handle v) { set_optional(o.egress, v); }},
                     {"header_bindings", [](O& o, py::handle v) { o.header_bindings = bindings_from(v); }},
                     {"hooks", [](O& o, py::handle v) { o.hooks = hooks_from(v); }},
                     {"access", [](O& o, py::handle v) { o.access = access_from(v); }},
                 };
                 for (auto [k, v] : kw) {
                     auto key = py::cast<std::string>(k);
                     auto it = setters.find(key);
                     if (it == setters.end())
                         throw py::type_error("MistralSandbox() got an unexpected keyword argument '" + key + "'");
                     it->second(o, v);
                 }
                 return std::make_unique<MistralSandbox>(std::move(o), env_from(env));
             }),
             py::kw_only(), "env"_a = py::none())
        .def_property_readonly("settings", &MistralSandbox::settings)
        .def("authored_settings", [](const MistralSandbox& s) { return to_python(s.authored_settings()); })
        .def("egress_policy", &MistralSandbox::egress_policy)
        .def("create_request", [](const MistralSandbox& s, const std::string& id) { return to_python(s.create_request(id)); },
             "session_id"_a)
        .def_static("env_var", &MistralSandbox::env_var, "option"_a)
        .def_static("env_options", &MistralSandbox::env_options);
    bind_common(mistral);

    m.def("network_to_json", [](const Network& n) { return to_python(network_to_json(n)); }, "network"_a);
    m.def("network_from_json", [](py::handle j) { return network_from_json(to_json(j)); }, "state"_a);
    m.def("egress_to_json", [](const EgressPolicy& e) { return to_python(egress_to_json(e)); }, "egress"_a);
    m.def("egress_from_json", [](py::handle j) { return egress_from_json(to_json(j)); }, "state"_a);
    m.def("binding_to_json", [](py::handle b) { return to_python(binding_to_json(binding_from(b))); }, "binding"_a);
}

}  // namespace
}  // namespace bashkit::python

namespace py = pybind11;

PYBIND11_MODULE(_bashkit, m) {
    namespace bp = bashkit::python;
    m.doc() = "bashkit: an in-process bash sandbox for agents (the sandbox API of bashkit-cpp)";
    m.attr("__version__") = BASHKIT_VERSION;
    bp::g_main_thread = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
    bp::bind_types(m);
    bp::bind_hooks(m);
    bp::bind_sessions(m);
    bp::bind_sandboxes(m);
    bp::bind_mistral(m);
}
