#include "tuner/boot/ledger.hpp"

#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/documents/json_values.hpp"
#include "model/errors.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"
#include "tuner/boot/boot_entries.hpp"
#include "tuner/boot/config_file.hpp"
#include "tuner/boot/grub_files.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/report_input.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/json_file.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune::boot {

using model::or_null;
namespace {

using model::JsonField;

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The way out of a ledger hugetune cannot trust: it was damaged or not written by hugetune.
constexpr const char* kLedgerFix = "restore the files from their .hugetune-*.bak backups by hand";

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
        "; this ledger was not written by hugetune: " + std::string(kLedgerFix) + " and remove it";
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
    if (!is_plain_absolute_path(lf.backup) || !name ||
        !is_backup_name(*name, std::string_view(lf.path).substr(slash + 1)))
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
                              {"previous_value", or_null(f.previous_value)}});
    j["bls_entries"] = nlohmann::json::array();
    for (const auto& e : ledger.bls_entries)
        j["bls_entries"].push_back({{"entry", e.entry},
                                    {"kernel", e.kernel},
                                    {"previous_value", or_null(e.previous_value)}});
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

namespace {

// A file's bytes, base64 as ledger_to_json writes them.
std::string decoded(const JsonField& field) {
    auto bytes = base64_decode(field.string());
    if (!bytes)
        field.fail("is not base64");
    return std::move(*bytes);
}

FileKind file_kind(const JsonField& field) {
    const std::string name = field.string();
    for (FileKind k : {FileKind::grub, FileKind::kernel_cmdline, FileKind::boot_entry})
        if (kind_name(k) == name)
            return k;
    field.fail("unknown file kind '" + name + "'");
}

LedgerFile read_file(const JsonField& f, const std::string& where) {
    LedgerFile lf;
    lf.path = f["path"].string();
    lf.kind = file_kind(f["kind"]);
    lf.backup = f["backup"].string();
    lf.original = decoded(f["original_base64"]);
    lf.applied = decoded(f["applied_base64"]);
    lf.previous_value = f["previous_value"].optional_string();
    check_ledger_file(lf, where);
    return lf;
}

LedgerBlsEntry read_bls_entry(const JsonField& e, const std::string& where) {
    LedgerBlsEntry entry{e["entry"].string(), e["kernel"].string(),
                         e["previous_value"].optional_string()};
    if (managed_file_kind(entry.entry) != FileKind::boot_entry)
        throw RuntimeError(where + ": bls_entries names '" + printable_text(entry.entry) +
                           "', not a boot entry under loader/entries; " + kLedgerFix);
    return entry;
}

// The pending file must be one the ledger records, with the bytes it records: what it becomes,
// and, when its backup is the one the file records (the first apply since the file was edited by
// hand, apply.cpp ledger_entry), what it was.
PendingWrite read_pending(const JsonField& w, const Ledger& l, const std::string& where) {
    PendingWrite pw{w["path"].string(), w["backup"].string(), decoded(w["from_base64"]),
                    decoded(w["to_base64"])};
    const LedgerFile* lf = l.file(pw.path);
    const bool first = lf && !pw.backup.empty() && pw.backup == lf->backup;
    if (!lf || lf->applied != pw.to || (first && lf->original != pw.from))
        throw RuntimeError(where + ": pending names '" + printable_text(pw.path) +
                           "', which its files do not record so; " + kLedgerFix);
    LedgerFile as_file = *lf;
    as_file.backup = pw.backup;
    check_ledger_file(as_file, where);
    return pw;
}

}  // namespace

Ledger ledger_from_json(const nlohmann::json& document, const std::string& where) {
    const JsonField doc(document, kLedgerFix, {where, "", true});
    doc.object();
    doc["schema_version"].whole_number({1, kLedgerSchemaVersion});
    Ledger l;
    l.applied_at = doc["applied_at"].string();
    l.value = doc["hugepage_alloc_threads"].string();
    // apply only records a validated count; rollback and verify print this value.
    if (!parse_thread_count(l.value))
        throw RuntimeError(where + ": hugepage_alloc_threads '" + printable_text(l.value) +
                           "' is not a thread count; " + kLedgerFix);
    l.bootloader = doc["bootloader"].string();
    for (std::size_t i = 0, n = doc["files"].array_size(); i < n; ++i)
        l.files.push_back(read_file(doc["files"][i], where));
    for (std::size_t i = 0, n = doc["bls_entries"].array_size(); i < n; ++i)
        l.bls_entries.push_back(read_bls_entry(doc["bls_entries"][i], where));
    if (const JsonField forced = doc["forced"]; forced.present())
        for (std::size_t i = 0, n = forced.array_size(); i < n; ++i)
            l.forced.push_back(forced[i].string());
    if (const JsonField pending = doc["pending"]; pending.present())
        for (std::size_t i = 0, n = pending.array_size(); i < n; ++i)
            l.pending.push_back(read_pending(pending[i], l, where));
    return l;
}

std::optional<Ledger> read_ledger(const KernelFs& root) {
    const auto document =
        read_json_file_if_readable(root.root_dir(), kLedgerPath, {true, kLedgerFix});
    if (!document)
        return std::nullopt;
    return ledger_from_json(*document, root.shown(kLedgerPath));
}

bool write_ledger(Effects& effects, const Ledger& ledger) {
    return effects.write_file(kLedgerPath, ledger_to_json(ledger).dump(2) + "\n",
                              FileOwnership{0600, {}, {}}, "");
}

void remove_ledger(Effects& effects) {
    effects.remove_file(kLedgerPath, "");
}

void put_back_ledger(Effects& effects, const std::optional<Ledger>& before) {
    if (before)
        write_ledger(effects, *before);
    else
        remove_ledger(effects);
}

}  // namespace hugetune::boot
