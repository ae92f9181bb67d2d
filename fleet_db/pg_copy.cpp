#include "fleet_db/pg_copy.hpp"

#include <soci/postgresql/soci-postgresql.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <limits>
#include <type_traits>

namespace hugetune::fleet_db::storage {

void copy_text(std::string& out, std::string_view value) {
    // The runs between the characters to escape are appended whole: a report is tens of kB.
    for (;;) {
        std::size_t at = 0;
        while (at < value.size() && value[at] != '\\' && value[at] != '\t' && value[at] != '\n' &&
               value[at] != '\r')
            ++at;
        out.append(value.substr(0, at));
        if (at == value.size())
            return;
        switch (value[at]) {
            case '\\':
                out += "\\\\";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\n':
                out += "\\n";
                break;
            default:  // '\r'
                out += "\\r";
        }
        value.remove_prefix(at + 1);
    }
}

void copy_null(std::string& out, bool last) {
    out += "\\N";
    out += last ? '\n' : '\t';
}

void copy_column(std::string& out, std::string_view value, bool last) {
    copy_text(out, value);
    out += last ? '\n' : '\t';
}

void copy_column(std::string& out, long long value, bool last) {
    out += std::to_string(value);
    out += last ? '\n' : '\t';
}

void copy_column(std::string& out, double value, bool last) {
    std::array<char, 32> text{};
    const auto r = std::to_chars(text.data(), text.data() + text.size(), value);
    out.append(text.data(), r.ptr);
    out += last ? '\n' : '\t';
}

namespace {

// `value`'s bytes in network byte order (big-endian).
template <typename T>
void network_order(std::string& out, T value) {
    static_assert(std::is_integral_v<T> && std::is_unsigned_v<T>);
    char bytes[sizeof value];
    for (std::size_t i = 0; i < sizeof value; ++i)
        bytes[i] = static_cast<char>(value >> (8 * (sizeof value - 1 - i)));
    out.append(bytes, sizeof bytes);
}

void length(std::string& out, std::int32_t bytes) {
    network_order(out, static_cast<std::uint32_t>(bytes));
}

}  // namespace

void binary_row(std::string& out, std::int16_t columns) {
    network_order(out, static_cast<std::uint16_t>(columns));
}

void binary_bigint(std::string& out, std::int64_t value) {
    length(out, 8);
    network_order(out, static_cast<std::uint64_t>(value));
}

void binary_integer(std::string& out, std::int32_t value) {
    length(out, 4);
    network_order(out, static_cast<std::uint32_t>(value));
}

void binary_double(std::string& out, double value) {
    length(out, 8);
    network_order(out, std::bit_cast<std::uint64_t>(value));
}

void binary_text(std::string& out, std::string_view value) {
    // A report is at most 64 MiB (fleet ingest's bound), far below a column's 1 GB.
    if (value.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw soci::soci_error("a value of " + std::to_string(value.size()) +
                               " bytes is too long for COPY");
    length(out, static_cast<std::int32_t>(value.size()));
    out.append(value);
}

void binary_null(std::string& out) {
    length(out, -1);
}

namespace {

// The binary format's header: its signature, no flags, no extension; and its trailer.
constexpr std::string_view kBinaryHeader{"PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19};
constexpr std::string_view kBinaryTrailer{"\377\377", 2};

// libpq's result, cleared however the scope ends.
struct PgResult {
    PGresult* result;
    ~PgResult() { PQclear(result); }
};

// The COPY's results: the server's message when one failed, empty when all went through.
std::string copy_outcome(PGconn* conn) {
    std::string message;
    while (PGresult* r = PQgetResult(conn)) {
        const PgResult done{r};
        if (PQresultStatus(r) != PGRES_COMMAND_OK && message.empty())
            message = PQresultErrorMessage(r);
    }
    return message;
}

}  // namespace

CopyIn::CopyIn(soci::session& sql, const std::string& copy, std::string what, CopyFormat format)
    : conn_(static_cast<soci::postgresql_session_backend*>(sql.get_backend())->conn_),
      what_(std::move(what)),
      format_(format) {
    const std::string statement =
        format == CopyFormat::binary ? copy + " WITH (FORMAT binary)" : copy;
    const PgResult started{PQexec(conn_, statement.c_str())};
    if (PQresultStatus(started.result) != PGRES_COPY_IN) {
        open_ = false;
        failed();
    }
    if (format == CopyFormat::binary)
        put(kBinaryHeader);
}

CopyIn::~CopyIn() {
    if (open_ && PQputCopyEnd(conn_, "the ingest stopped") == 1)
        copy_outcome(conn_);
}

void CopyIn::failed() const {
    throw soci::soci_error("COPY of " + what_ + " failed: " + PQerrorMessage(conn_));
}

void CopyIn::put(std::string_view rows) {
    // In pieces of at most 1 MiB: PQputCopyData takes an int, and a server reads as it comes.
    constexpr std::size_t kPiece = 1 << 20;
    for (std::size_t at = 0; at < rows.size(); at += kPiece) {
        const std::size_t n = std::min(kPiece, rows.size() - at);
        if (PQputCopyData(conn_, rows.data() + at, static_cast<int>(n)) != 1)
            failed();
    }
}

void CopyIn::end() {
    if (format_ == CopyFormat::binary)
        put(kBinaryTrailer);
    open_ = false;
    if (PQputCopyEnd(conn_, nullptr) != 1)
        failed();
    if (const std::string message = copy_outcome(conn_); !message.empty())
        throw soci::soci_error("COPY of " + what_ + " failed: " + message);
}

void copy_in(soci::session& sql, const std::string& copy, const std::string& rows,
             const std::string& what, CopyFormat format) {
    CopyIn in(sql, copy, what, format);
    in.put(rows);
    in.end();
}

}  // namespace hugetune::fleet_db::storage
