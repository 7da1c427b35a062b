#include "opconform/validator/interrupt.h"

#include <signal.h>

#include <atomic>

namespace opconform::validator {

namespace {

std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}

}  // namespace

struct InterruptScope::Saved {
  struct sigaction sigint {};
  struct sigaction sigterm {};
};

InterruptScope::InterruptScope() : saved_(new Saved) {
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR in the receiving thread
  ::sigaction(SIGINT, &action, &saved_->sigint);
  ::sigaction(SIGTERM, &action, &saved_->sigterm);
}

InterruptScope::~InterruptScope() {
  ::sigaction(SIGINT, &saved_->sigint, nullptr);
  ::sigaction(SIGTERM, &saved_->sigterm, nullptr);
  delete saved_;
}

bool interrupted() { return g_signal.load() != 0; }

int interrupt_signal() { return g_signal.load(); }

}  // namespace opconform::validator
