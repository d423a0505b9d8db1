// The other families under the governor: search, archive, files, system, data encoding, layout, seq.
#include "tests/utils_contain/contain.hpp"

namespace bashkit::contain_test {
namespace {

TEST(ContainSearch, EndlessInputStopsAtTheDeadline) {
    for (const char* s : {"yes | grep -c y", "grep -a x /dev/zero", "yes | rg -c y", "rg -a x /dev/zero",
                          "yes | grep -v n > /dev/null"})
        expect_deadline_stops(s);
}

TEST(ContainSearch, EndlessLineHitsTheMemoryLimit) {
    expect_memory_limit("grep -a x /dev/zero");
    expect_memory_limit("rg -a x /dev/zero");
    expect_memory_limit("tr '\\0' a < /dev/zero | grep -c b");
}

TEST(ContainArchive, LongCompressionIsCancellable) {
    // The member is made before the deadline is armed: only the compression runs under it.
    Env e(size_t{1} << 30, 600s);
    ASSERT_EQ(e.sh->run("head -c 200000000 /dev/urandom > r").exit_code, 0);
    for (const char* s : {"zip -q a.zip r", "gzip -9 -c r > /dev/null", "tar czf a.tgz r", "tar cjf a.tbz r",
                          "gzip -c r | gunzip > /dev/null", "xxd r > /dev/null", "base64 r > /dev/null",
                          "cmp r r", "od r > /dev/null"}) {
        auto t0 = std::chrono::steady_clock::now();
        auto r = e.sh->run(std::string("timeout 0.3 ") + s);
        EXPECT_NE(r.exit_code, 0) << s;
        EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s) << s;
    }
    // The session goes on.
    EXPECT_EQ(e.sh->run("echo ok").out, "ok\n");
}

TEST(ContainArchive, WholeArchivesHitTheMemoryLimit) {
    Env e(64 * kMiB);
    ASSERT_EQ(e.sh->run("head -c 40000000 /dev/urandom > r; head -c 40000000 /dev/urandom > s").exit_code, 0);
    auto r = e.sh->run("zip -q a.zip r s; echo \"status $?\"; ls a.zip 2>&1 | head -c 0; cmp r s; echo \"status $?\"");
    EXPECT_EQ(r.out, "status 1\nstatus 1\n") << r.err;
    EXPECT_NE(r.err.find("bashkit: zip: memory limit exceeded (64 MiB)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("bashkit: cmp: memory limit exceeded (64 MiB)"), std::string::npos) << r.err;
    EXPECT_EQ(e.budget.used(), 0u);
    // Below the budget the same tools work.
    r = e.sh->run("head -c 1000000 r > r1; zip -q b.zip r1 && unzip -p b.zip r1 | cmp - r1 && echo same");
    EXPECT_EQ(r.out, "same\n") << r.err;
}

TEST(ContainSystem, ABackgroundJobOutlivingAUtilitysCallCannotReachItsStreams) {
    // xargs and timeout run `bash -c` through the command runner with streams that live only for the
    // call; the job outlives it. Its late writes fail (EBADF) instead of touching freed streams (ASan
    // saw a use-after-free here), and the session goes on.
    Env e;
    auto r = e.sh->run("echo x | xargs bash -c '(sleep 0.2; echo late; echo late >&2) &'; "
                       "timeout 5 bash -c '(sleep 0.2; read -r l; echo late) &'; sleep 0.5; echo ok");
    EXPECT_EQ(r.out, "ok\n") << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(e.sh->run("echo again").out, "again\n");
}

TEST(ContainFiles, EndlessLoopsOfFileUtilitiesStop) {
    Env e(size_t{1} << 30, 600s);
    ASSERT_EQ(e.sh->run("for i in $(seq 1 300); do mkdir -p d/a$i/b/c; touch d/a$i/b/c/f; done").exit_code, 0);
    std::thread killer([&] {
        std::this_thread::sleep_for(300ms);
        e.sh->cancel();
    });
    auto t0 = std::chrono::steady_clock::now();
    auto r = e.sh->run("while :; do find d -name f > /dev/null; ls -R d > /dev/null; du -a d > /dev/null; "
                       "cp -r d x; rm -rf x; tree d > /dev/null; done");
    killer.join();
    EXPECT_NE(r.exit_code, 0);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(ContainSystem, EndlessLoopsStopAtTheDeadline) {
    for (const char* s : {"yes | xargs -n1 true", "seq 1 100000000 | xargs echo > /dev/null",
                          "while :; do date -d 'now + 1 day' > /dev/null; done", "yes | fold -w 1 > /dev/null",
                          "tr -dc a < /dev/zero", "seq -w 1 100000000000 > /dev/null", "yes | column",
                          "yes | nl | tail -n 1", "yes | fmt | tail -n 1", "yes | paste -s -d, | wc -c"})
        expect_deadline_stops(s);
}

TEST(ContainSystem, BufferingLayoutHitsTheMemoryLimit) {
    expect_memory_limit("yes | column");
    expect_memory_limit("yes | column -t");
    expect_memory_limit("yes | fmt");
    expect_memory_limit("shuf -i 1-100000000");
}

TEST(ContainSystem, LegitimateLayoutPasses) {
    Env e;
    auto r = e.sh->run("seq 1 100000 | column | wc -l; seq 1 100000 | paste - - | column -t | tail -n 1; "
                       "seq -w 1 10 | head -n 2; shuf -i 1-1000000 | sort -n | tail -n 1");
    EXPECT_EQ(r.out, "10000\n99999  100000\n01\n02\n1000000\n") << r.err;
    EXPECT_EQ(e.budget.used(), 0u);
}

}  // namespace
}  // namespace bashkit::contain_test
