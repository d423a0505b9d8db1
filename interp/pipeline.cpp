// Concurrency: the threads stages and jobs run on, pipelines (a thread per stage over in-process pipes),
// background jobs.
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "interp/builtins/builtin.hpp"
#include "interp/dev_fs.hpp"
#include "interp/exec.hpp"
#include "interp/fields.hpp"
#include "interp/pattern.hpp"
#include "interp/quote.hpp"
#include "interp/stream_charge.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

// ---------------------------------------------------------------- threads

// A pipeline stage or a job runs on a thread of a process-wide pool: starting a thread (clone, a fresh stack
// mapped and, on return, unmapped with a TLB shootdown) cost most of a two-stage pipeline's 170 us. A worker
// that finishes its function waits for the next one (at most kMaxIdle wait, each for kIdleTime, then ends).
// Workers are kept per stack size. Thread-locals therefore outlive a function: ours are scoped, or caches.
struct StackTask {
    std::function<void()> fn;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
};

namespace {

class StagePool {
public:
    // Never destroyed: idle workers wait on it until the process ends. A forked child gets a new one (its
    // parent's workers do not exist there).
    static StagePool& instance() {
        static const bool registered = [] {
            pthread_atfork(nullptr, nullptr, [] { current() = new StagePool; });
            return true;
        }();
        (void)registered;
        return *current();
    }

    // Runs the task on an idle worker with that stack size, or on a new one; false when none can be started.
    bool run(size_t stack_bytes, std::shared_ptr<StackTask> task) {
        {
            std::lock_guard lock(mu_);
            for (size_t i = idle_.size(); i-- > 0;) {
                Worker* w = idle_[i];
                if (w->stack_bytes != stack_bytes) continue;
                idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
                w->task = std::move(task);
                w->cv.notify_one();
                return true;
            }
        }
        auto* w = new (std::nothrow) Worker;
        if (!w) return false;
        w->pool = this;
        w->stack_bytes = stack_bytes;
        w->task = std::move(task);
        pthread_attr_t attr;
        if (pthread_attr_init(&attr) != 0) {
            delete w;
            return false;
        }
        pthread_attr_setstacksize(&attr, stack_bytes);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        int rc = pthread_create(&t, &attr, &StagePool::worker_main, w);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            w->task->fn = nullptr;  // release what the function holds (pipe ends, state)
            delete w;
            return false;
        }
        return true;
    }

private:
    static constexpr size_t kMaxIdle = 16;
    static constexpr std::chrono::seconds kIdleTime{10};

    struct Worker {
        StagePool* pool = nullptr;
        size_t stack_bytes = 0;
        std::shared_ptr<StackTask> task;  // set while it has work (under the pool's mutex once idle)
        bool retire = false;              // taken out of the idle list to make room: end
        std::condition_variable cv;
    };

    static StagePool*& current() {
        static StagePool* p = new StagePool;
        return p;
    }

    // A thread entry: nothing thrown (a failed lock included) may leave it.
    static void* worker_main(void* arg) noexcept {
        try {
            work(static_cast<Worker*>(arg));
        } catch (...) {
        }
        return nullptr;
    }
    static void work(Worker* w) {
        StagePool* pool = w->pool;
        std::shared_ptr<StackTask> task = std::move(w->task);
        while (task) {
            // The last line of defence of a thread entry (the functions catch what they can report themselves).
            try {
                task->fn();
            } catch (...) {
            }
            // The function may own its StackThread (a detached job), and holds pipe ends: release it before
            // the joiner is told, as a thread's end did.
            try {
                task->fn = nullptr;
            } catch (...) {
            }
            // Idle again before the joiner is told, so that the next function its thread starts finds it.
            // With kMaxIdle waiting already, the one idle the longest ends instead (the stack size just used
            // is the likelier next).
            bool parked = false;
            {
                std::lock_guard lock(pool->mu_);
                if (pool->idle_.size() >= kMaxIdle) {
                    Worker* oldest = pool->idle_.front();
                    pool->idle_.erase(pool->idle_.begin());
                    oldest->retire = true;
                    oldest->cv.notify_one();
                }
                try {
                    pool->idle_.push_back(w);
                    parked = true;
                } catch (...) {
                }
            }
            {
                std::lock_guard lock(task->mu);
                task->done = true;
            }
            task->cv.notify_all();
            task.reset();
            if (!parked) break;
            std::unique_lock lock(pool->mu_);
            if (!w->cv.wait_for(lock, kIdleTime, [&] { return w->task != nullptr || w->retire; })) {
                std::erase(pool->idle_, w);
                break;
            }
            if (w->retire) break;  // already out of the idle list
            task = std::move(w->task);
        }
        delete w;
    }

    std::mutex mu_;
    std::vector<Worker*> idle_;
};

}  // namespace

StackThread::~StackThread() { join(); }

void StackThread::detach() {
    if (started_ && !joined_) joined_ = true;
}

bool StackThread::start(size_t stack_bytes, std::function<void()> fn) {
    auto task = std::make_shared<StackTask>();
    task->fn = std::move(fn);
    if (!StagePool::instance().run(stack_bytes, task)) return false;
    task_ = std::move(task);
    started_ = true;
    return true;
}

void StackThread::join() {
    if (started_ && !joined_) {
        std::unique_lock lock(task_->mu);
        task_->cv.wait(lock, [&] { return task_->done; });
        joined_ = true;
    }
}

StackBounds current_stack_bounds() {
    StackBounds b;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* addr = nullptr;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            b.low = reinterpret_cast<uintptr_t>(addr);
            b.high = b.low + size;
        }
        pthread_attr_destroy(&attr);
    }
    return b;
}

Job::~Job() = default;

// ---------------------------------------------------------------- pipelines

Flow Exec::exec_pipeline(const sx::Pipeline* p) {
    auto t0 = std::chrono::steady_clock::now();
    uint32_t n = p->stages.size;
    Flow result = Flow::Normal;
    std::vector<int> statuses;
    if (n == 0) {
        state_.status = 0;
    } else if (n == 1) {
        // `! cmd` ignores failures inside cmd only when set -e is on as it starts (bash marks the command
        // then): `f() { set -e; false; }; ! f` exits, and without set -e the ERR trap runs inside `! { ...; }`.
        // The negated command itself never triggers errexit or the ERR trap.
        bool suppress = p->negated && state_.opts[OptErrexit];
        const sx::Command* saved_inverted = inverted_;
        if (p->negated) inverted_ = p->stages[0];
        if (suppress) ++errexit_suppressed_;
        Flow f = exec_command(p->stages[0]);
        if (suppress) --errexit_suppressed_;
        inverted_ = saved_inverted;
        if (f != Flow::Normal) return f;
        statuses.push_back(state_.status);
    } else {
        statuses.assign(n, 0);
        if (subshell_depth_ + 1 > session_.limits.max_subshell_depth) {
            error("pipeline: maximum nesting depth exceeded (" + std::to_string(session_.limits.max_subshell_depth) + ")");
            state_.status = 1;
            return Flow::Normal;
        }
        uint32_t want = n - 1;
        uint32_t before = session_.threads.fetch_add(want);
        if (before + want > session_.limits.max_threads) {
            session_.threads.fetch_sub(want);
            error("fork: retry: Resource temporarily unavailable (thread limit " +
                  std::to_string(session_.limits.max_threads) + ")");
            state_.status = 254;
            return Flow::Normal;
        }
        std::vector<PipeEnds> pipes(n - 1);
        std::vector<std::unique_ptr<StackThread>> threads;
        // An exception on this thread (a state copy over the memory budget) must not leave stages blocked on
        // pipe ends nobody will close, nor the thread count raised.
        struct StagesGuard {
            ShellSession& s;
            uint32_t want;
            std::vector<PipeEnds>& pipes;
            std::vector<std::unique_ptr<StackThread>>& threads;
            ~StagesGuard() {
                for (auto& pe : pipes) {
                    pe.reader.reset();
                    pe.writer.reset();
                }
                for (auto& th : threads) th->join();
                s.threads.fetch_sub(want);
            }
        } stages_guard{session_, want, pipes, threads};
        for (auto& pe : pipes) pe = make_charged_pipe(cancel_, session_.memory);
        threads.reserve(n - 1);
        bool lastpipe = state_.opts[ShLastpipe] && !state_.opts[OptMonitor];
        for (uint32_t i = 0; i + 1 < n; ++i) {
            // bash runs a simple command's DEBUG trap before it forks the stage (the stage, a subshell, runs
            // it again only with set -T, and then not for this command).
            const bool stage_debug = p->stages[i]->kind == sx::NodeKind::Simple && debug_armed();
            if (stage_debug) {
                if (p->stages[i]->pos.line) lineno_ = p->stages[i]->pos.line + line_offset_;
                if (debug_trap(p->stages[i]) == Flow::Exit) return Flow::Exit;
            }
            auto state = std::make_shared<ShellState>(state_.subshell_copy(session_.new_pid()));
            const bool exit_trap = forked_child_runs_exit_trap(p->stages[i], true, async_pipeline_ == p);
            if (i > 0) state->fds[0] = pipes[i - 1].reader;
            state->fds[1] = pipes[i].writer;
            if (p->stderr_too.size > i && p->stderr_too[i]) state->fds[2] = pipes[i].writer;
            auto th = std::make_unique<StackThread>();
            const sx::Command* stage = p->stages[i];
            int* slot = &statuses[i];
            Exec* parent = this;
            bool started = th->start(session_.limits.stage_stack_bytes, [state, stage, slot, parent, stage_debug, exit_trap]() mutable {
                // A thread entry: nothing thrown may leave it (std::terminate would end the embedder).
                try {
                    Exec child(*parent, *state, true);
                    child.is_subshell_ = true;
                    child.exit_trap_done_ = !exit_trap;
                    if (stage_debug) child.debug_done_ = stage;
                    child.subshell_depth_ = parent->subshell_depth_ + 1;
                    try {
                        Flow f = child.exec_command(stage);
                        int status = f == Flow::Exit ? child.exit_status_ : state->status;
                        state->status = status;
                        child.exit_status_ = status;
                        child.run_exit_trap();
                        *slot = state->status;
                    } catch (...) {
                        if (StreamPtr e = child.fd(2)) child.report_exception("pipeline", *e);
                        *slot = 1;
                    }
                } catch (...) {
                    *slot = 1;
                }
                try {
                    state.reset();  // closes this stage's pipe ends
                } catch (...) {
                }
            });
            if (!started) {
                error("fork: Resource temporarily unavailable");
                statuses[i] = 254;
            }
            threads.push_back(std::move(th));
        }
        // The parent keeps no pipe ends but the last reader.
        StreamPtr last_in = pipes[n - 2].reader;
        for (auto& pe : pipes) {
            pe.reader.reset();
            pe.writer.reset();
        }
        const sx::Command* last = p->stages[n - 1];
        if (lastpipe) {
            RedirGuard guard(*this);
            guard.save(0);
            set_fd(0, std::move(last_in));
            Flow f = exec_command(last);
            guard.restore();
            if (f != Flow::Normal) result = f;
            statuses[n - 1] = f == Flow::Exit ? exit_status_ : state_.status;
        } else {
            const bool stage_debug = last->kind == sx::NodeKind::Simple && debug_armed();
            if (stage_debug) {
                if (last->pos.line) lineno_ = last->pos.line + line_offset_;
                if (debug_trap(last) == Flow::Exit) return Flow::Exit;
            }
            // bash runs a last stage `( list )` in the child it forked for the stage, where the list's
            // failure (an `exit` too, `!` or not) fires the ERR trap a first time; the pipeline's failure
            // fires it again here.
            const bool err_in_child = last->kind == sx::NodeKind::Subshell && last->redirs.size == 0 &&
                                      !(traps_running_ & kRunningErr) && errexit_suppressed_ == 0 &&
                                      state_.traps.count(kTrapErr);
            int status = in_subshell([&](Exec& child) {
                child.subshell_depth_ = subshell_depth_ + 1;
                child.exit_trap_done_ = !forked_child_runs_exit_trap(last, true, async_pipeline_ == p);
                child.set_fd(0, std::move(last_in));
                if (stage_debug) child.debug_done_ = last;
                if (!err_in_child) return child.exec_command(last);
                Flow f = child.exec_list(last->as<sx::Subshell>()->body);
                if (f == Flow::Exit) child.state_.status = child.exit_status_;
                if ((f == Flow::Normal || f == Flow::Exit) && child.state_.status != 0) {
                    bool saved = child.state_.traps_display_only;
                    child.state_.traps_display_only = false;
                    (void)child.run_trap(kTrapErr);
                    child.state_.traps_display_only = saved;
                }
                return f;
            });
            statuses[n - 1] = status;
        }
        if (cancel_->cancelled_fast()) return cancelled_flow();
    }
    if (n > 0) {
        int status = statuses.back();
        if (state_.opts[OptPipefail])
            for (int s : statuses)
                if (s != 0) status = s;
        if (p->negated) status = status == 0 ? 1 : 0;
        state_.status = status;
        set_pipestatus(statuses);
    } else if (p->negated) {
        state_.status = state_.status == 0 ? 1 : 0;
    }
    if (p->timed) {
        auto dt = std::chrono::steady_clock::now() - t0;
        double secs = std::chrono::duration<double>(dt).count();
        char buf[128];
        if (p->time_posix) {
            std::snprintf(buf, sizeof buf, "real %.2f\nuser %.2f\nsys %.2f\n", secs, 0.0, 0.0);
        } else {
            int m = static_cast<int>(secs / 60);
            double s = secs - m * 60;
            std::snprintf(buf, sizeof buf, "\nreal\t%dm%.3fs\nuser\t%dm%.3fs\nsys\t%dm%.3fs\n", m, s, 0, 0.0, 0, 0.0);
        }
        write_err(buf);
    }
    if (result != Flow::Normal) return result;
    if (n >= 1 && !p->negated && n > 1) return after_command(p);
    return Flow::Normal;
}

// ---------------------------------------------------------------- background jobs

int Exec::alloc_fd(int from) {
    for (int f = from; f < 1024; ++f)
        if (static_cast<size_t>(f) >= state_.fds.size() || !state_.fds[static_cast<size_t>(f)]) return f;
    return -1;
}

int64_t Exec::start_job(std::shared_ptr<ShellState> state, const sx::Command* cmd, std::string text) {
    return start_thread_job(
        std::move(state),
        [cmd](Exec& child) {
            // `false &`: the failure of an asynchronous simple command itself runs no ERR trap (the commands
            // inside `{ false; } &` do, with set -E).
            if (cmd->kind == sx::NodeKind::Simple) ++child.errexit_suppressed_;
            child.exit_trap_done_ = !forked_child_runs_exit_trap(cmd, false, true);
            if (cmd->kind == sx::NodeKind::Pipeline) child.async_pipeline_ = cmd->as<sx::Pipeline>();
            return child.exec_command(cmd);
        },
        std::move(text), true);
}

int64_t Exec::start_list_job(std::shared_ptr<ShellState> state, sx::List<sx::Stmt*> body) {
    int64_t pid = start_thread_job(std::move(state), [body](Exec& child) { return child.exec_list(body); }, "procsub", false);
    return pid;
}

int64_t Exec::start_thread_job(std::shared_ptr<ShellState> state, std::function<Flow(Exec&)> body, std::string text,
                               bool in_table) {
    if (in_table) {
        uint32_t jobs = session_.bg_jobs.fetch_add(1);
        if (jobs + 1 > session_.limits.max_background_jobs) {
            session_.bg_jobs.fetch_sub(1);
            error("fork: retry: Resource temporarily unavailable (background job limit " +
                  std::to_string(session_.limits.max_background_jobs) + ")");
            return -1;
        }
    }
    auto release_job = [this, in_table] {
        if (in_table) session_.bg_jobs.fetch_sub(1);
    };
    if (subshell_depth_ + 1 > session_.limits.max_subshell_depth) {
        release_job();
        error("background job: maximum nesting depth exceeded (" + std::to_string(session_.limits.max_subshell_depth) + ")");
        return -1;
    }
    if (session_.threads.fetch_add(1) + 1 > session_.limits.max_threads) {
        session_.threads.fetch_sub(1);
        release_job();
        error("fork: retry: Resource temporarily unavailable (thread limit " + std::to_string(session_.limits.max_threads) + ")");
        return -1;
    }
    auto job = std::make_shared<Job>();
    job->id = in_table ? state_.jobs->next_id++ : 0;
    job->pid = session_.new_pid();
    job->command = std::move(text);
    auto token = std::make_shared<CancelToken>();
    token->set_parent(cancel_hold_, cancel_);
    job->token = token;
    state->enter_subshell(std::make_shared<JobTable>(), job->pid);  // a job starts with no jobs of its own
    ShellSession* sess = &session_;
    uint32_t depth = subshell_depth_ + 1;
    uint32_t cdepth = call_depth_;
    auto owner = *owner_hold_;  // the job may outlive the handle its parent runs under
    std::string source = source_name_;
    sess->live_threads.fetch_add(1);
    auto th = std::make_unique<StackThread>();
    bool ok = th->start(session_.limits.stage_stack_bytes, [sess, state, body, job, depth, cdepth, owner, source,
                                                      in_table]() mutable {
        // A thread entry: nothing thrown may leave it (std::terminate would end the embedder).
        try {
            Exec child(*sess, *state, *job->token);
            child.cancel_hold_ = job->token;
            child.is_subshell_ = true;
            child.subshell_depth_ = depth;
            child.call_depth_ = cdepth;
            child.owner_own_ = owner;
            child.owner_hold_ = &child.owner_own_;
            child.source_name_ = source;
            try {
                Flow f = body(child);
                int status = f == Flow::Exit ? child.exit_status_ : state->status;
                state->status = status;
                child.exit_status_ = status;
                child.run_exit_trap();
                job->status.store(state->status);
            } catch (...) {
                if (StreamPtr e = child.fd(2)) child.report_exception(job->command, *e);
                job->status.store(1);
            }
        } catch (...) {
            job->status.store(1);
        }
        try {
            state.reset();
            body = nullptr;
        } catch (...) {
        }
        if (in_table) sess->bg_jobs.fetch_sub(1);
        sess->threads.fetch_sub(1);
        {
            std::lock_guard lock(sess->jobs_mu);
            job->done.store(true);
            sess->live_threads.fetch_sub(1);
        }
        sess->jobs_cv.notify_all();
    });
    if (!ok) {
        sess->live_threads.fetch_sub(1);
        release_job();
        session_.threads.fetch_sub(1);
        error("fork: Resource temporarily unavailable");
        return -1;
    }
    th->detach();
    job->thread = std::move(th);
    job->hidden = !in_table;
    state_.jobs->jobs.push_back(job);
    state_.last_bg_pid = job->pid;
    return job->pid;
}

Flow Exec::exec_background(const sx::Stmt* stmt) {
    // Without job control a background job reads from /dev/null.
    auto state = std::make_shared<ShellState>(
        state_.job_copy(state_.opts[OptMonitor] ? nullptr : std::make_shared<NullStream>()));
    // The text `jobs` shows (bash prints its own rendering of the command too).
    int64_t pid = start_job(std::move(state), stmt->cmd, sx::print_one_line(*stmt->cmd));
    state_.status = pid < 0 ? 1 : 0;
    return Flow::Normal;
}

}  // namespace bashkit::interp
