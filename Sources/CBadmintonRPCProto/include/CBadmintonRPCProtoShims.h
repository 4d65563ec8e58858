/* Thin shims over protobuf-c for the Swift side of the RPC core; written by hand. */
#ifndef C_BADMINTON_RPC_PROTO_SHIMS_H
#define C_BADMINTON_RPC_PROTO_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

/* The Swift side treats every generated message struct as starting with its ProtobufCMessage. */
_Static_assert(offsetof(ProtobufCMessage, descriptor) == 0, "descriptor first");

/* Packs `message` into `out`, which holds at least `cbadminton_packed_size(message)` bytes. */
static inline size_t cbadminton_pack(const void *message, uint8_t *out) {
  return protobuf_c_message_pack((const ProtobufCMessage *)message, out);
}

/* The encoded size of `message`. */
static inline size_t cbadminton_packed_size(const void *message) {
  return protobuf_c_message_get_packed_size((const ProtobufCMessage *)message);
}

/* Unpacks `length` bytes as `descriptor`'s message with the default allocator; NULL when they do
 * not parse. The caller frees the result exactly once with `cbadminton_free_unpacked`. */
static inline void *cbadminton_unpack(const ProtobufCMessageDescriptor *descriptor, size_t length,
                                      const uint8_t *data) {
  return protobuf_c_message_unpack(descriptor, NULL, length, data);
}

/* Frees a message returned by `cbadminton_unpack`. */
static inline void cbadminton_free_unpacked(void *message) {
  protobuf_c_message_free_unpacked((ProtobufCMessage *)message, NULL);
}

#endif
