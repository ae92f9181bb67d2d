#include "fleet_db/pg_copy.hpp"

#include <soci/postgresql/soci-postgresql.h>

#include <algorithm>
#include <array>
#include <charconv>

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

CopyIn::CopyIn(soci::session& sql, const std::string& copy, std::string what)
    : conn_(static_cast<soci::postgresql_session_backend*>(sql.get_backend())->conn_),
      what_(std::move(what)) {
    const PgResult started{PQexec(conn_, copy.c_str())};
    if (PQresultStatus(started.result) != PGRES_COPY_IN) {
        open_ = false;
        failed();
    }
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
    open_ = false;
    if (PQputCopyEnd(conn_, nullptr) != 1)
        failed();
    if (const std::string message = copy_outcome(conn_); !message.empty())
        throw soci::soci_error("COPY of " + what_ + " failed: " + message);
}

void copy_in(soci::session& sql, const std::string& copy, const std::string& rows,
             const std::string& what) {
    CopyIn in(sql, copy, what);
    in.put(rows);
    in.end();
}

}  // namespace hugetune::fleet_db::storage
