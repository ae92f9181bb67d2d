// PostgreSQL's COPY FROM STDIN on a SOCI session's own connection, and its text format, for the
// ingests that send many rows at once (boot records, reports). Inside fleet_db/ only.
#pragma once

#include <soci/soci.h>

#include <cstdint>
#include <string>
#include <string_view>

struct pg_conn;  // libpq's PGconn

namespace hugetune::fleet_db::storage {

// A value in COPY's text format: a backslash, tab, newline or carriage return escaped.
void copy_text(std::string& out, std::string_view value);

// A column of a row in COPY's text format: the value, or \N for null, then a tab, or a newline
// after the row's last column. A double is written exactly (its shortest text that reads back as
// the same double).
void copy_null(std::string& out, bool last = false);
void copy_column(std::string& out, std::string_view value, bool last = false);
void copy_column(std::string& out, long long value, bool last = false);
void copy_column(std::string& out, double value, bool last = false);

// A row in COPY's binary format (FORMAT binary): the values as PostgreSQL's own send functions
// write them, so neither side escapes or parses a report's tens of kB. binary_row() starts the
// row with its count of columns, then each column's length and bytes, in network byte order.
// Each value must be of its column's type exactly, or the server refuses the COPY: BIGINT
// (binary_bigint), INTEGER (binary_integer), DOUBLE PRECISION (binary_double, IEEE 754) and TEXT
// (binary_text, its bytes, which the server checks are UTF-8).
void binary_row(std::string& out, std::int16_t columns);
void binary_bigint(std::string& out, std::int64_t value);
void binary_integer(std::string& out, std::int32_t value);
void binary_double(std::string& out, double value);
void binary_text(std::string& out, std::string_view value);
void binary_null(std::string& out);

enum class CopyFormat { text, binary };

// One COPY FROM STDIN: started by the constructor with `copy` ("COPY table (columns) FROM
// STDIN"; for the binary format the constructor adds its option, its header and, at end(), its
// trailer), rows sent with put() as they are made, ended by end(), which throws soci_error
// naming `what` and the server's message when the server refused them. One not ended (an
// exception on the way) is cancelled, and its transaction fails. No other statement may run on
// the session meanwhile.
class CopyIn {
  public:
    CopyIn(soci::session& sql, const std::string& copy, std::string what,
           CopyFormat format = CopyFormat::text);
    CopyIn(const CopyIn&) = delete;
    CopyIn& operator=(const CopyIn&) = delete;
    ~CopyIn();
    void put(std::string_view rows);
    void end();

  private:
    [[noreturn]] void failed() const;
    ::pg_conn* conn_;
    std::string what_;
    CopyFormat format_;
    bool open_ = true;
};

// The same for rows made beforehand.
void copy_in(soci::session& sql, const std::string& copy, const std::string& rows,
             const std::string& what, CopyFormat format = CopyFormat::text);

}  // namespace hugetune::fleet_db::storage
