#include "tuner/boot/ledger.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/boot_entries.hpp"
#include "tuner/boot/grub_files.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/report_input.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune::boot {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

nlohmann::json optional_json(const std::optional<std::string>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<std::string> optional_string(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null())
        return std::nullopt;
    return j.at(key).get<std::string>();
}

std::string kind_name(FileKind k) {
    switch (k) {
        case FileKind::grub:
            return "grub";
        case FileKind::kernel_cmdline:
            return "kernel-cmdline";
        case FileKind::boot_entry:
            return "boot-entry";
    }
    return "?";
}

FileKind parse_kind(const std::string& name, const std::string& where) {
    for (FileKind k : {FileKind::grub, FileKind::kernel_cmdline, FileKind::boot_entry})
        if (kind_name(k) == name)
            return k;
    throw RuntimeError(where + ": unknown file kind '" + name + "'");
}

// The one name in `dir` (a directory path ending in '/') that `path` has, when it has one.
std::optional<std::string_view> name_in(std::string_view path, std::string_view dir) {
    if (!path.starts_with(dir))
        return std::nullopt;
    std::string_view name = path.substr(dir.size());
    if (name.empty() || name.find('/') != std::string_view::npos)
        return std::nullopt;
    return name;
}

// A file's entry: a path hugetune manages, of the kind it records there, and a backup (when
// there is one) beside it, named as back_up names it.
void check_ledger_file(const LedgerFile& lf, const std::string& where) {
    const auto kind = managed_file_kind(lf.path);
    const std::string fix =
        "; this ledger was not written by hugetune: restore the files from their "
        ".hugetune-*.bak backups by hand and remove it";
    if (!kind)
        throw RuntimeError(where + ": files names '" + printable_text(lf.path) +
                           "', not a boot configuration file hugetune edits" + fix);
    if (*kind != lf.kind)
        throw RuntimeError(where + ": " + lf.path + " is recorded as a " + kind_name(lf.kind) +
                           " file, and is a " + kind_name(*kind) + " file" + fix);
    if (lf.backup.empty())
        return;
    const std::size_t slash = lf.path.rfind('/');
    const auto name = name_in(lf.backup, std::string_view(lf.path).substr(0, slash + 1));
    const std::string stem = lf.path.substr(slash + 1) + ".hugetune-";
    if (!is_plain_absolute_path(lf.backup) || !name || !name->starts_with(stem) ||
        !name->ends_with(".bak"))
        throw RuntimeError(where + ": the backup of " + lf.path + " is '" +
                           printable_text(lf.backup) + "', not a " + stem + "*.bak beside it" +
                           fix);
}

}  // namespace

std::optional<FileKind> managed_file_kind(std::string_view path) {
    if (!is_plain_absolute_path(path))
        return std::nullopt;
    if (path == kGrubMain)
        return FileKind::grub;
    if (auto name = name_in(path, std::string(kGrubDropins) + "/");
        name && name->ends_with(".cfg") && !name->starts_with("."))
        return FileKind::grub;
    if (path == kKernelCmdlineFile)
        return FileKind::kernel_cmdline;
    for (std::string_view boot : kBootDirs)
        if (auto name = name_in(path, std::string(boot) + "/loader/entries/");
            name && name->ends_with(".conf"))
            return FileKind::boot_entry;
    return std::nullopt;
}

const LedgerFile* Ledger::file(std::string_view path) const {
    for (const auto& f : files)
        if (f.path == path)
            return &f;
    return nullptr;
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                     (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                     static_cast<unsigned char>(bytes[i + 2]);
        for (int s = 18; s >= 0; s -= 6)
            out.push_back(kAlphabet[(v >> s) & 63]);
    }
    std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2)
            v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0)
        return std::nullopt;
    std::string out;
    for (std::size_t i = 0; i < text.size(); i += 4) {
        unsigned v = 0;
        int pad = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            char c = text[i + k];
            if (c == '=' && i + 4 == text.size() && k >= 2) {
                ++pad;
                v <<= 6;
                continue;
            }
            auto at = kAlphabet.find(c);
            if (at == std::string_view::npos || pad > 0)
                return std::nullopt;
            v = (v << 6) | static_cast<unsigned>(at);
        }
        out.push_back(static_cast<char>((v >> 16) & 0xff));
        if (pad < 2)
            out.push_back(static_cast<char>((v >> 8) & 0xff));
        if (pad < 1)
            out.push_back(static_cast<char>(v & 0xff));
    }
    return out;
}

nlohmann::json ledger_to_json(const Ledger& ledger) {
    nlohmann::json j;
    j["schema_version"] = kLedgerSchemaVersion;
    j["applied_at"] = ledger.applied_at;
    j["hugepage_alloc_threads"] = ledger.value;
    j["bootloader"] = ledger.bootloader;
    j["files"] = nlohmann::json::array();
    // File bytes go in base64: configuration files need not be valid UTF-8.
    for (const auto& f : ledger.files)
        j["files"].push_back({{"path", f.path},
                              {"kind", kind_name(f.kind)},
                              {"backup", f.backup},
                              {"original_base64", base64_encode(f.original)},
                              {"applied_base64", base64_encode(f.applied)},
                              {"previous_value", optional_json(f.previous_value)}});
    j["bls_entries"] = nlohmann::json::array();
    for (const auto& e : ledger.bls_entries)
        j["bls_entries"].push_back({{"entry", e.entry},
                                    {"kernel", e.kernel},
                                    {"previous_value", optional_json(e.previous_value)}});
    j["forced"] = ledger.forced;
    if (!ledger.pending.empty()) {
        j["pending"] = nlohmann::json::array();
        for (const auto& w : ledger.pending)
            j["pending"].push_back({{"path", w.path},
                                    {"backup", w.backup},
                                    {"from_base64", base64_encode(w.from)},
                                    {"to_base64", base64_encode(w.to)}});
    }
    return j;
}

Ledger ledger_from_json(const std::string& text, const std::string& where) {
    try {
        auto j = nlohmann::json::parse(text);
        int version = j.at("schema_version").get<int>();
        if (version < 1 || version > kLedgerSchemaVersion)
            throw RuntimeError(where + ": ledger schema_version " + j.at("schema_version").dump() +
                               " is not one this hugetune reads");
        Ledger l;
        l.applied_at = j.at("applied_at").get<std::string>();
        l.value = j.at("hugepage_alloc_threads").get<std::string>();
        // apply only records a validated count; rollback and verify print this value.
        if (!parse_thread_count(l.value))
            throw RuntimeError(where + ": hugepage_alloc_threads '" + printable_text(l.value) +
                               "' is not a thread count; restore the files from their "
                               ".hugetune-*.bak backups by hand");
        l.bootloader = j.at("bootloader").get<std::string>();
        for (const auto& f : j.at("files")) {
            LedgerFile lf;
            lf.path = f.at("path").get<std::string>();
            lf.kind = parse_kind(f.at("kind").get<std::string>(), where);
            lf.backup = f.at("backup").get<std::string>();
            auto original = base64_decode(f.at("original_base64").get<std::string>());
            auto applied = base64_decode(f.at("applied_base64").get<std::string>());
            if (!original || !applied)
                throw RuntimeError(where + ": corrupt file contents");
            lf.original = *original;
            lf.applied = *applied;
            lf.previous_value = optional_string(f, "previous_value");
            check_ledger_file(lf, where);
            l.files.push_back(std::move(lf));
        }
        for (const auto& e : j.at("bls_entries")) {
            l.bls_entries.push_back({e.at("entry").get<std::string>(),
                                     e.at("kernel").get<std::string>(),
                                     optional_string(e, "previous_value")});
            if (managed_file_kind(l.bls_entries.back().entry) != FileKind::boot_entry)
                throw RuntimeError(where + ": bls_entries names '" +
                                   printable_text(l.bls_entries.back().entry) +
                                   "', not a boot entry under loader/entries; restore the files "
                                   "from their .hugetune-*.bak backups by hand");
        }
        if (j.contains("forced"))
            l.forced = j.at("forced").get<std::vector<std::string>>();
        if (j.contains("pending"))
            for (const auto& w : j.at("pending")) {
                auto from = base64_decode(w.at("from_base64").get<std::string>());
                auto to = base64_decode(w.at("to_base64").get<std::string>());
                if (!from || !to)
                    throw RuntimeError(where + ": corrupt pending file contents");
                PendingWrite pw{w.at("path").get<std::string>(), w.at("backup").get<std::string>(),
                                *from, *to};
                const LedgerFile* lf = l.file(pw.path);
                // The pending file must be one the ledger records, with the bytes it records.
                if (!lf || lf->applied != pw.to)
                    throw RuntimeError(where + ": pending names '" + printable_text(pw.path) +
                                       "', which its files do not record so; restore the files "
                                       "from their .hugetune-*.bak backups by hand");
                LedgerFile as_file = *lf;
                as_file.backup = pw.backup;
                check_ledger_file(as_file, where);
                l.pending.push_back(std::move(pw));
            }
        return l;
    } catch (const nlohmann::json::exception& e) {
        throw RuntimeError(where + " is not a valid hugetune ledger (" + e.what() +
                           "); restore the files from their .hugetune-*.bak backups by hand");
    }
}

std::optional<Ledger> read_ledger(const KernelFs& root) {
    auto text = root.read(kLedgerPath);
    if (!text)
        return std::nullopt;
    return ledger_from_json(*text, root.resolve(kLedgerPath).string());
}

void write_ledger(const KernelFs& root, const Ledger& ledger) {
    auto path = root.resolve(kLedgerPath, LastLink::keep);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        throw RuntimeError("cannot create " + path.parent_path().string() + ": " + ec.message());
    write_file_atomically(path, ledger_to_json(ledger).dump(2) + "\n", FileOwnership{0600, {}, {}});
}

void remove_ledger(const KernelFs& root) {
    std::error_code ec;
    std::filesystem::remove(root.resolve(kLedgerPath, LastLink::keep), ec);
    if (ec)
        throw RuntimeError("cannot remove " + root.resolve(kLedgerPath).string());
}

void put_back_ledger(const KernelFs& root, const std::optional<Ledger>& before) {
    if (before)
        write_ledger(root, *before);
    else
        remove_ledger(root);
}

}  // namespace hugetune::boot
