// Request and answer of a unary callback method on one protobuf arena: the
// whole message tree of a call (a tick's thousands of sub-messages) is
// allocated in a few large blocks and freed at once when the call ends,
// instead of one malloc and free per sub-message.
#ifndef IK_SERVER_ARENA_ALLOCATOR_H_
#define IK_SERVER_ARENA_ALLOCATOR_H_

#include <google/protobuf/arena.h>
#include <grpcpp/support/message_allocator.h>

namespace ik::server {

// Arena blocks of 16 KiB growing to 64 KiB: below glibc's mmap threshold,
// so freed blocks go back to the heap and are reused by the next call
// instead of being unmapped and faulted in again.
inline google::protobuf::ArenaOptions CallArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 16 * 1024;
  options.max_block_size = 64 * 1024;
  return options;
}

template <typename Request, typename Response>
class ArenaMessageAllocator final
    : public grpc::MessageAllocator<Request, Response> {
 public:
  grpc::MessageHolder<Request, Response>* AllocateMessages() override {
    return new Holder();
  }

 private:
  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    Holder() : arena_(CallArenaOptions()) {
      this->set_request(
          google::protobuf::Arena::CreateMessage<Request>(&arena_));
      this->set_response(
          google::protobuf::Arena::CreateMessage<Response>(&arena_));
    }
    void Release() override { delete this; }

   private:
    google::protobuf::Arena arena_;
  };
};

}  // namespace ik::server

#endif  // IK_SERVER_ARENA_ALLOCATOR_H_
