#include "compiler/space/json_value.h"

#include <cctype>
#include <cstdio>

#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

// Deep nesting only comes from malformed or hostile input; stop before the stack does.
constexpr int kMaxDepth = 64;

class JsonParser {
 public:
  JsonParser(const std::string& text, const std::string& what) : text_(text), what_(what) {}

  JsonValue ParseDocument() {
    JsonValue value = ParseValue(0);
    SkipSpace();
    if (pos_ != text_.size()) Fail("unexpected text after the value");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& message) {
    TESSERA_USER_ERROR() << "malformed " << what_ << " at offset " << pos_ << ": " << message;
    throw;  // unreachable: the builder above throws
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  void Expect(char c) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  JsonValue ParseValue(int depth) {
    if (depth > kMaxDepth) Fail("nesting is too deep");
    SkipSpace();
    if (pos_ >= text_.size()) Fail("unexpected end of input");
    char c = text_[pos_];
    JsonValue value;
    if (c == '{') {
      ++pos_;
      value.type = JsonValue::Type::kObject;
      if (Consume('}')) return value;
      do {
        SkipSpace();
        std::string key = ParseString();
        Expect(':');
        value.members.emplace_back(key, ParseValue(depth + 1));
      } while (Consume(','));
      Expect('}');
    } else if (c == '[') {
      ++pos_;
      value.type = JsonValue::Type::kArray;
      if (Consume(']')) return value;
      do {
        value.items.push_back(ParseValue(depth + 1));
      } while (Consume(','));
      Expect(']');
    } else if (c == '"') {
      value.type = JsonValue::Type::kString;
      value.string = ParseString();
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      value.type = JsonValue::Type::kInt;
      value.integer = ParseInteger();
    } else if (ParseLiteral("true")) {
      value.type = JsonValue::Type::kBool;
      value.boolean = true;
    } else if (ParseLiteral("false")) {
      value.type = JsonValue::Type::kBool;
    } else if (!ParseLiteral("null")) {
      Fail(std::string("unexpected character '") + c + "'");
    }
    return value;
  }

  bool ParseLiteral(const char* word) {
    std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }

  int64_t ParseInteger() {
    size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    size_t digits = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == digits) Fail("expected digits");
    if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
      Fail("only integers are allowed here");
    }
    if (pos_ - digits > 18) Fail("integer out of range");
    return std::stoll(text_.substr(start, pos_ - start));
  }

  std::string ParseString() {
    if (pos_ >= text_.size() || text_[pos_] != '"') Fail("expected a string");
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) Fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) Fail("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) Fail("short \\u escape");
          for (size_t i = pos_; i < pos_ + 4; ++i) {
            if (!std::isxdigit(static_cast<unsigned char>(text_[i]))) Fail("bad \\u escape");
          }
          unsigned code = std::stoul(text_.substr(pos_, 4), nullptr, 16);
          pos_ += 4;
          if (code >= 0x80) Fail("only ASCII \\u escapes are supported");
          out += static_cast<char>(code);
          break;
        }
        default:
          Fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  const std::string& text_;
  const std::string& what_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::Find(const std::string& key) const {
  for (const auto& member : members) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

JsonValue ParseJson(const std::string& text, const std::string& what) {
  return JsonParser(text, what).ParseDocument();
}

std::string QuoteJson(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace space
}  // namespace tessera
