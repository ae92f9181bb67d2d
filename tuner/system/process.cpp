#include "tuner/system/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace hugetune {
namespace {

struct Pipe {
    int fds[2] = {-1, -1};
    Pipe() {
        if (pipe2(fds, O_CLOEXEC) != 0)
            fds[0] = fds[1] = -1;
    }
    ~Pipe() {
        for (int fd : fds)
            if (fd >= 0)
                close(fd);
    }
    void close_end(int i) {
        if (fds[i] >= 0)
            close(fds[i]);
        fds[i] = -1;
    }
};

// Standard input from `input_fd`, or /dev/null when it is -1.
ProcessResult run_program_from(const std::vector<std::string>& argv, int input_fd,
                               const std::function<void(std::string_view)>& on_output) {
    ProcessResult result;
    if (argv.empty())
        return result;
    Pipe out, err;
    if (out.fds[0] < 0 || err.fds[0] < 0)
        return result;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (input_fd >= 0)
        posix_spawn_file_actions_adddup2(&actions, input_fd, 0);
    else
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out.fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err.fds[1], 2);

    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    pid_t pid = -1;
    int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    out.close_end(1);
    err.close_end(1);
    if (rc != 0) {
        result.err = std::string("cannot start ") + argv[0];
        return result;
    }

    std::array<pollfd, 2> fds{{{out.fds[0], POLLIN, 0}, {err.fds[0], POLLIN, 0}}};
    int open_fds = 2;
    char buf[4096];
    while (open_fds > 0) {
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                const std::string_view piece(buf, static_cast<std::size_t>(n));
                if (i == 0)
                    on_output(piece);
                else
                    result.err.append(piece);
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status))
        result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        result.exit_code = 128 + WTERMSIG(status);
    return result;
}

}  // namespace

ProcessResult run_program(const std::vector<std::string>& argv) {
    std::string out;
    auto result = run_program(argv, [&out](std::string_view piece) { out.append(piece); });
    result.out = std::move(out);
    return result;
}

ProcessResult run_program(const std::vector<std::string>& argv,
                          const std::function<void(std::string_view)>& on_output) {
    return run_program_from(argv, -1, on_output);
}

ProcessResult run_program_reading(const std::vector<std::string>& argv, int input_fd) {
    std::string out;
    auto result =
        run_program_from(argv, input_fd, [&out](std::string_view piece) { out.append(piece); });
    result.out = std::move(out);
    return result;
}

bool program_exists(const std::string& argv0) {
    if (argv0.find('/') != std::string::npos)
        return access(argv0.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    if (!path)
        return false;
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        auto candidate = std::filesystem::path(dir.empty() ? std::string(".") : dir) / argv0;
        if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate))
            return true;
    }
    return false;
}

}  // namespace hugetune
