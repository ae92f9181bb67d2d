#include "tuner/system/own_binary.hpp"

#include <elf.h>
#include <link.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace hugetune {

namespace fs = std::filesystem;

fs::path own_binary_path() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path("/usr/bin/hugetune") : self;
}

namespace {

// Hex digits of the running program's build ID kept for the digest: 64 bits, as the digest of the
// file's bytes gives.
constexpr std::size_t kDigestHexDigits = 16;

// The first kDigestHexDigits hex digits of the GNU build ID among the notes from `at` to `end`,
// each note's name and description padded to `align` bytes; empty when there is none (or it is
// shorter).
std::string build_id_in_notes(const unsigned char* at, const unsigned char* end,
                              std::size_t align) {
    const auto pad = [align](std::size_t n) { return (n + align - 1) / align * align; };
    while (static_cast<std::size_t>(end - at) >= sizeof(ElfW(Nhdr))) {
        ElfW(Nhdr) note;
        std::memcpy(&note, at, sizeof note);
        const unsigned char* name = at + sizeof note;
        const auto left = static_cast<std::size_t>(end - name);
        if (pad(note.n_namesz) > left || pad(note.n_descsz) > left - pad(note.n_namesz))
            return {};
        const unsigned char* desc = name + pad(note.n_namesz);
        if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
            std::memcmp(name, "GNU", 4) == 0 && 2 * note.n_descsz >= kDigestHexDigits) {
            std::string hex;
            char two[3];
            for (std::size_t k = 0; 2 * k < kDigestHexDigits; ++k) {
                std::snprintf(two, sizeof two, "%02x", desc[k]);
                hex += two;
            }
            return hex;
        }
        at = desc + pad(note.n_descsz);
    }
    return {};
}

// The build ID the linker wrote into the running program (its NT_GNU_BUILD_ID note: a hash of
// the linked output), read from the program's note segments as loaded; empty when it has none
// or one shorter than the digest.
std::string loaded_build_id() {
    std::string hex;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) -> int {
            auto& found = *static_cast<std::string*>(out);
            for (ElfW(Half) i = 0; i < info->dlpi_phnum && found.empty(); ++i) {
                const ElfW(Phdr)& segment = info->dlpi_phdr[i];
                if (segment.p_type != PT_NOTE)
                    continue;
                const auto* at =
                    reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr);
                // Notes are 4-aligned, or 8 in a segment of 8-aligned notes.
                found = build_id_in_notes(at, at + segment.p_memsz, segment.p_align == 8 ? 8 : 4);
            }
            return 1;  // the first object is the program itself: nothing after it
        },
        &hex);
    return hex;
}

// The running binary's own bytes (/proc/self/exe) as FNV-1a over 64-bit words, a byte at the end
// taken alone, read in blocks (a sanitizer build is tens of MB); empty when it cannot be read.
std::string file_digest() {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    std::uint64_t h = 0xcbf29ce484222325ULL;
    std::vector<char> block(1 << 20);
    std::size_t total = 0;
    while (in) {
        in.read(block.data(), static_cast<std::streamsize>(block.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        std::size_t i = 0;
        for (; i + 8 <= got; i += 8) {
            std::uint64_t word;
            std::memcpy(&word, block.data() + i, 8);
            h = (h ^ word) * 0x100000001b3ULL;
        }
        for (; i < got; ++i)
            h = (h ^ static_cast<unsigned char>(block[i])) * 0x100000001b3ULL;
        total += got;
    }
    if (in.bad() || total == 0)
        return {};
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

}  // namespace

const std::string& own_binary_digest() {
    static const std::string digest = [] {
        std::string id = loaded_build_id();
        return id.empty() ? file_digest() : id;
    }();
    return digest;
}

std::optional<std::string> memory_filesystem_of(const RootDir& root, std::string_view target_path) {
    fs::path dir = fs::path(target_path).parent_path();
    std::optional<ContainedDir> held;
    while (!(held = root.directory(dir.string())) && dir.has_parent_path() &&
           dir != dir.parent_path())
        dir = dir.parent_path();
    struct statfs info {};
    if (!held || fstatfs(held->fd(), &info) != 0)
        return std::nullopt;
    const auto type = static_cast<long>(info.f_type);
    if (type == TMPFS_MAGIC || type == RAMFS_MAGIC)
        return dir.string();
    return std::nullopt;
}

// The tunable came with glibc 2.35; a sanitizer build's allocator is the sanitizer's own.
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#if __GLIBC_PREREQ(2, 35)
#define HUGETUNE_MALLOC_HUGETLB 1
#endif
#endif

void run_again_with_huge_heap_pages(char** argv) {
#ifdef HUGETUNE_MALLOC_HUGETLB
    constexpr const char* kName = "GLIBC_TUNABLES";
    constexpr const char* kTunable = "glibc.malloc.hugetlb";
    const char* before = std::getenv(kName);
    const std::string had = before ? before : "";
    if (before && had.find(kTunable) != std::string::npos)
        return;
    std::string mode;
    std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
    if (mode.empty() || mode.find("[never]") != std::string::npos)
        return;
    const std::string value = had + (had.empty() ? "" : ":") + kTunable + "=1";
    if (setenv(kName, value.c_str(), 1) != 0)
        return;
    std::cout.flush();
    std::cerr.flush();
    execv("/proc/self/exe", argv);
    // Not run again (no /proc, a sandbox): on as it was.
    if (before)
        setenv(kName, had.c_str(), 1);
    else
        unsetenv(kName);
#else
    (void)argv;
#endif
}

}  // namespace hugetune
