// libcurl's global set-up, for every library that makes libcurl handles (the trace export, the
// etcd client): curl_global_init is not guaranteed thread-safe, so it runs once, before the first
// handle, whichever library makes it. The callers link libcurl.
#pragma once

#include <curl/curl.h>

#include <mutex>

namespace resched::server {

inline void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace resched::server
