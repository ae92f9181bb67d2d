#include "model/errors.hpp"

namespace hugetune {

void Message::append(std::string text, std::string setting) {
    if (text.empty() && setting.empty())
        return;
    if (!parts_.empty() && parts_.back().setting.empty()) {
        parts_.back().text += text;
        parts_.back().setting = std::move(setting);
        return;
    }
    parts_.push_back({std::move(text), std::move(setting)});
}

std::string Message::text(const SettingWords& words) const {
    std::string text;
    for (const auto& part : parts_) {
        text += part.text;
        if (!part.setting.empty())
            text += words(part.setting);
    }
    return text;
}

}  // namespace hugetune
