// Where the fleet database is: the connection string or file a user gives, read as libpq reads
// it, and every password in it masked in what hugetune prints (docs/fleet.md "Connection").
#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "fleet_db/fleet_db.hpp"
#include "fleet_db/fleet_db_error.hpp"

namespace hugetune::fleet_db {
namespace {

using Kind = FleetDbError::Kind;

bool starts_with(const std::string& text, std::string_view prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

namespace {

// libpq's connection keywords (PostgreSQL documentation, "Parameter Key Words"): a value that
// starts with one of them followed by '=' is a keyword/value connection string.
constexpr std::string_view kLibpqKeywords[] = {"host",
                                               "hostaddr",
                                               "port",
                                               "dbname",
                                               "user",
                                               "password",
                                               "passfile",
                                               "service",
                                               "options",
                                               "sslmode",
                                               "sslrootcert",
                                               "application_name",
                                               "connect_timeout",
                                               "target_session_attrs",
                                               "gssencmode"};

bool keyword_form(const std::string& value) {
    for (const auto keyword : kLibpqKeywords)
        if (starts_with(value, std::string(keyword) + "="))
            return true;
    return false;
}

// The connection string with hugetune's timeouts where the caller set none, so a server that
// accepts and never answers cannot hang a command (docs/fleet.md "The database").
std::string with_timeouts(const std::string& location, bool url) {
    if (location.find("connect_timeout=") != std::string::npos)
        return location;
    const std::string setting = "connect_timeout=" + std::to_string(kPostgresConnectSeconds);
    if (!url)
        return location + " " + setting;
    return location + (location.find('?') == std::string::npos ? "?" : "&") + setting;
}

}  // namespace

namespace {

std::string lowered(std::string_view text) {
    std::string out(text);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// "%41" as "A"; a '%' not followed by two hex digits stays as it is.
std::string percent_decoded(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() &&
            std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// A value that names PostgreSQL without being a URL libpq takes: "PostgreSQL://",
// "postgresql:u:pw@h", "postgresql//h", a leading blank.
bool near_url(const std::string& value) {
    std::size_t start = 0;
    while (start < value.size() && std::isspace(static_cast<unsigned char>(value[start])))
        ++start;
    const std::string head = lowered(std::string_view(value).substr(start, 12));
    return starts_with(head, "postgres") && value.find_first_of(":/", start) != std::string::npos;
}

}  // namespace

std::vector<std::string> secrets_in(const std::string& value) {
    std::vector<std::string> out;
    const auto add = [&](const std::string& secret) {
        for (const auto& s : {secret, percent_decoded(secret)})
            if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end())
                out.push_back(s);
    };
    // user:password@ in the authority: from after "://" (or the start) to the path.
    if (const auto first_at = value.find('@'); first_at != std::string::npos) {
        const auto scheme = value.find("://");
        const std::size_t start = scheme != std::string::npos && scheme < first_at ? scheme + 3 : 0;
        const auto path = value.find('/', first_at);
        const auto last_at = value.rfind('@', path == std::string::npos ? value.size() : path);
        for (const auto at : {first_at, last_at}) {
            const std::string userinfo = value.substr(start, at - start);
            if (const auto colon = userinfo.find(':'); colon != std::string::npos)
                add(userinfo.substr(colon + 1));
            if (const auto colon = userinfo.rfind(':'); colon != std::string::npos)
                add(userinfo.substr(colon + 1));
        }
    }
    // password=VALUE, in a query or the keyword form, in any case.
    const std::string low = lowered(value);
    for (auto p = low.find("password="); p != std::string::npos; p = low.find("password=", p + 1)) {
        const std::size_t at = p + 9;
        std::size_t end = at;
        if (at < value.size() && value[at] == '\'') {
            end = value.find('\'', at + 1);
            if (end == std::string::npos)
                end = value.size() - 1;
            add(value.substr(at, end + 1 - at));  // with its quotes: password=***
            add(value.substr(at + 1, end - at - 1));
            continue;
        }
        end = std::min(value.find_first_of(" \t&", at), value.size());
        add(value.substr(at, end - at));
    }
    return out;
}

// A secret this short is masked only where it stands alone (no letter or digit beside it), so
// that a one-letter password does not take every such letter out of a message.
constexpr std::size_t kShortSecret = 4;

std::string masked(std::string text, std::vector<std::string> secrets) {
    std::sort(secrets.begin(), secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    const auto word = [&](std::size_t i) {
        return i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]));
    };
    for (const auto& secret : secrets)
        for (auto p = text.find(secret); p != std::string::npos;) {
            if (secret.size() < kShortSecret &&
                ((p > 0 && word(p - 1)) || word(p + secret.size()))) {
                p = text.find(secret, p + 1);
                continue;
            }
            text.replace(p, secret.size(), "***");
            p = text.find(secret, p + 3);
        }
    return text;
}

namespace {

// libpq's words with every quoted part (where it repeats the value) as "***".
std::string without_quoted(const std::string& message) {
    std::string out;
    bool quoted = false;
    for (const char c : message) {
        if (c == '"') {
            out += quoted ? "***\"" : "\"";
            quoted = !quoted;
        } else if (!quoted && c != '\n') {
            out += c;
        }
    }
    return out;
}

// The connection string as libpq reads it (PQconninfoParse), never as a guess at its text: the
// password libpq will send joins the secrets, and a string libpq cannot read, or reads so that
// part of what was meant as the password would stand in a message as a host or a port, is
// refused without showing it.
void read_as_libpq(const std::string& value, bool url, DbTarget& t) {
    const std::string fix =
        ": keep the password out of it (libpq's password file, ~/.pgpass or PGPASSFILE), or "
        "percent-encode '@', '/', ':', '&' and spaces in it (%40, %2F, %3A, %26, %20)";
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(value.c_str(), &error);
    if (options == nullptr) {
        const std::string said = error != nullptr ? without_quoted(error) : "out of memory";
        PQfreemem(error);
        throw FleetDbError(Kind::usage,
                           "the PostgreSQL connection string (not shown) is one "
                           "libpq cannot read (" +
                               said + ")" + fix);
    }
    std::string problem, keywords;
    for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
        if (o->val == nullptr)
            continue;
        const std::string keyword = o->keyword, val = o->val;
        // The keyword form is shown as libpq read it, not as written: its escapes ("pass\ word")
        // would keep a password from being found in the text.
        std::string shown = keyword == "password" ? "***" : val;
        if (shown.empty() || shown.find_first_of(" '\\") != std::string::npos) {
            std::string quoted = "'";
            for (const char c : shown)
                quoted += c == '\'' || c == '\\' ? std::string("\\") + c : std::string(1, c);
            shown = quoted + "'";
        }
        keywords += (keywords.empty() ? "" : " ") + keyword + "=" + shown;
        if (keyword == "password" && !val.empty()) {
            t.secrets.push_back(val);
        } else if (keyword == "host" && val.find('@') != std::string::npos) {
            problem = "a host name with '@'";
        } else if (keyword == "port" && val.find_first_not_of("0123456789,") != std::string::npos) {
            problem = "a port that is not a number";
        }
    }
    PQconninfoFree(options);
    t.display = url ? masked(value, t.secrets) : keywords;
    if (!problem.empty())
        throw FleetDbError(Kind::usage,
                           "the PostgreSQL connection string (not shown) reads, as "
                           "libpq reads it, with " +
                               problem + ", where a password was likely meant" + fix);
}

}  // namespace

DbTarget parse_db_target(const std::string& value) {
    DbTarget t;
    t.location = value;
    t.secrets = secrets_in(value);
    t.display = masked(value, t.secrets);
    const bool url = starts_with(value, "postgresql://") || starts_with(value, "postgres://");
    if (!url && near_url(value))
        throw FleetDbError(Kind::usage,
                           t.display +
                               ": looks like a PostgreSQL connection URL but is not one; write "
                               "postgresql://USER@HOST/DATABASE (lowercase, with '://', nothing "
                               "before it), or give a SQLite file path");
    if (!url && !keyword_form(value))
        return t;
    read_as_libpq(value, url, t);
    t.dialect = Dialect::postgresql;
    t.location = with_timeouts(value, url);
    return t;
}

}  // namespace hugetune::fleet_db
