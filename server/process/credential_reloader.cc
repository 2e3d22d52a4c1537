#include "server/process/credential_reloader.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/base/log.h"

namespace resched::server {
namespace {

// The file's bytes; empty when it cannot be read (a rotation may remove it for a moment).
std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  return text.str();
}

}  // namespace

CredentialReloader::CredentialReloader(Sources sources, std::chrono::milliseconds poll)
    : sources_(std::move(sources)),
      tokens_seen_(sources_.tokens_file.empty() ? "" : Contents(sources_.tokens_file)),
      tls_seen_(sources_.tls == nullptr ? ""
                                        : absl::StrCat(Contents(sources_.tls->files().cert), "\n",
                                                       Contents(sources_.tls->files().key), "\n",
                                                       Contents(sources_.tls->files().client_ca))),
      timer_(poll, [this] { Reload(/*only_if_changed=*/true); }) {}

void CredentialReloader::ReloadAll() { Reload(/*only_if_changed=*/false); }

void CredentialReloader::Reload(bool only_if_changed) {
  MutexLock lock(&mu_);
  if (!sources_.tokens_file.empty() && sources_.tokens != nullptr) ReloadTokens(only_if_changed);
  if (sources_.tls != nullptr) ReloadTls(only_if_changed);
}

void CredentialReloader::ReloadTokens(bool only_if_changed) {
  const std::string& path = sources_.tokens_file;
  std::string contents = Contents(path);
  if (only_if_changed && contents == tokens_seen_) return;
  tokens_seen_ = std::move(contents);
  absl::StatusOr<auth::TokenTable> table = auth::TokenTable::Load(path);
  if (!table.ok()) {
    Log(LogLevel::kError, "tokens_reload_refused",
        absl::StrCat("--tokens-file: ", table.status().message(),
                     "; the tokens in use stay until the file loads"),
        {{"file", path}});
    return;
  }
  const std::size_t grants = table->size();
  sources_.tokens->Replace(std::make_shared<const auth::TokenTable>(*std::move(table)));
  Log(LogLevel::kInfo, "tokens_reloaded",
      absl::StrCat("--tokens-file reloaded: ", grants, " token(s) from '", path, "'"),
      {{"file", path}, {"tokens", absl::StrCat(grants)}});
}

void CredentialReloader::ReloadTls(bool only_if_changed) {
  const transport::ServerTlsFiles& files = sources_.tls->files();
  std::string contents = absl::StrCat(Contents(files.cert), "\n", Contents(files.key), "\n",
                                      Contents(files.client_ca));
  if (only_if_changed && contents == tls_seen_) return;
  tls_seen_ = std::move(contents);
  if (absl::Status reloaded = sources_.tls->Reload(); !reloaded.ok()) {
    Log(LogLevel::kError, "tls_reload_refused",
        absl::StrCat(reloaded.message(), "; the certificate in use stays until the files load"),
        {{"cert", files.cert}, {"key", files.key}, {"client_ca", files.client_ca}});
    return;
  }
  Log(LogLevel::kInfo, "tls_reloaded",
      absl::StrCat(
          "TLS reloaded from '", files.cert, "' and '", files.key, "'",
          files.client_ca.empty() ? "" : absl::StrCat(" (clients: '", files.client_ca, "')"),
          ": new connections use it"),
      {{"cert", files.cert}, {"key", files.key}, {"client_ca", files.client_ca}});
}

}  // namespace resched::server
