import BadmintonAPI
import BadmintonJSON
import BadmintonRPC
import Dispatch
import Glibc
import Logging
import NIOCore

/// What a stub handler throws: the request was decoded and passed every check before the
/// handler, and the handler did not run.
struct HandlerNotRun: Error {}

/// The server's registrations: every service's methods, registered through the same code the
/// server uses (`registerMethods(in:)`), with stub handlers.
let registry: HandlerRegistry = {
  var registry = HandlerRegistry()
  for service in serviceStubs { service.registerMethods(in: &registry) }
  return registry
}()

/// Every registered method, sorted by path; a target byte picks one by its index.
let methods: [MethodInfo] = registry.allMethods

let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

/// The targets; the first byte of an input picks one (modulo their number), the rest is its data.
enum Target: UInt8, CaseIterable {
  /// Bytes as they arrive on a server connection: frames, decoded one after another.
  /// Data: an options byte (bit 0: no session yet; bit 1: 64 KiB frame limit; bit 2: a small
  /// memory budget), then the bytes.
  case frames = 0
  /// One envelope body, put in a frame whose header is made to fit. Data: an options byte
  /// (bit 0: the body is zstd-compressed; bit 1: 64 KiB frame limit), then the body.
  case envelope = 1
  /// One request payload for one method. Data: the method's index, then the payload.
  case request = 2
  /// JSON text for one method's request, parsed and turned into the message. Data: the
  /// method's index, then the text.
  case json = 3
  /// Binary bytes of one method's request printed as JSON. Data: the method's index, then the
  /// bytes.
  case binaryToJSON = 4
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
  _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  if let folder = getenv("BADMINTON_FUZZ_WRITE_SEEDS") {
    writeSeeds(to: String(cString: folder))
    exit(0)
  }
  if getenv("BADMINTON_FUZZ_LIST_METHODS") != nil {
    for (index, info) in methods.enumerated() { print(index, info.path, info.requestType) }
    exit(0)
  }
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data, size >= 2 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let target = Target(rawValue: input[0] % UInt8(Target.allCases.count))!
  let selector = input[1]
  let rest = Array(input[2...])
  switch target {
  case .frames: fuzzFrames(options: selector, rest)
  case .envelope: fuzzEnvelope(options: selector, rest)
  case .request: fuzzRequest(method: method(selector), payload: rest)
  case .json: fuzzJSON(method: method(selector), rest)
  case .binaryToJSON: fuzzBinaryToJSON(method: method(selector), rest)
  }
  return 0
}

/// The method a target byte picks.
func method(_ selector: UInt8) -> MethodInfo { methods[Int(selector) % methods.count] }

// MARK: Frames and envelopes

/// Decodes `bytes` as a server connection's frame decoder would, frame after frame, then runs
/// each REQUEST through the checks before its handler.
func fuzzFrames(options: UInt8, _ bytes: [UInt8]) {
  let trust = options & 1 != 0 ? ConnectionTrust() : nil
  let limit = options & 2 != 0 ? 64 * 1024 : WireConfiguration().maximumBodySize
  let budget = RequestMemoryBudget(limit: options & 4 != 0 ? 256 * 1024 : 64 * 1024 * 1024)
  let decoder = FrameDecoder(
    configuration: WireConfiguration(maximumBodySize: limit), budget: budget, trust: trust)
  var buffer = ByteBuffer(bytes: bytes)
  while true {
    let envelope: Envelope?
    do {
      envelope = try decoder.decodeEnvelope(from: &buffer)
    } catch {
      // A violation ends the connection: whatever was charged for the frame is given back.
      precondition(budget.inUse == decoder.chargedBytes, "budget not given back after \(error)")
      return
    }
    // The frame in progress, and nothing else, holds budget.
    precondition(budget.inUse == decoder.chargedBytes, "budget holds more than the frame")
    guard let envelope else { return }
    checkRoundTrip(envelope)
    if envelope.kind == .request { admit(envelope) }
  }
}

/// Puts `body` in one frame and decodes it.
func fuzzEnvelope(options: UInt8, _ body: [UInt8]) {
  var frame = ByteBuffer()
  frame.writeInteger(options & 1 != 0 ? FrameFormat.compressedFlag : 0)
  frame.writeInteger(UInt32(truncatingIfNeeded: body.count))
  frame.writeBytes(body)
  let limit = options & 2 != 0 ? 64 * 1024 : WireConfiguration().maximumBodySize
  let decoder = FrameDecoder(configuration: WireConfiguration(maximumBodySize: limit))
  if options & 1 == 0 { checkClientReader(body) }
  guard let envelope = try? decoder.decodeEnvelope(from: &frame) else { return }
  checkRoundTrip(envelope)
  if envelope.kind == .request { admit(envelope) }
}

/// The client's envelope reader reads every envelope protoc-c reads, with the same call, kind,
/// payload and status, and refuses every one protoc-c refuses.
func checkClientReader(_ body: [UInt8]) {
  guard let reference = try? Envelope(serializedBytes: body) else {
    precondition(
      (try? ReceivedEnvelope(reading: ByteBuffer(bytes: body))) == nil,
      "the client's reader reads an envelope protoc-c refuses")
    return
  }
  let received: ReceivedEnvelope
  do {
    received = try ReceivedEnvelope(reading: ByteBuffer(bytes: body))
  } catch {
    preconditionFailure("the client's reader refuses an envelope protoc-c reads")
  }
  precondition(
    received.callID == reference.callID && received.kind == reference.kind
      && Array(received.payload.readableBytesView) == reference.payload
      && received.status == reference.status,
    "the client's reader reads an envelope differently from protoc-c")
}

/// A decoded envelope, encoded by the frame encoder and decoded again, is the same envelope.
func checkRoundTrip(_ envelope: Envelope) {
  var frame = ByteBuffer()
  FrameEncoder(configuration: WireConfiguration()).encode(envelope, into: &frame)
  let decoder = FrameDecoder(configuration: WireConfiguration(maximumBodySize: 1 << 30))
  let again: Envelope?
  do {
    again = try decoder.decodeEnvelope(from: &frame)
  } catch {
    preconditionFailure("a re-encoded envelope does not decode: \(error)")
  }
  precondition(again == envelope, "a re-encoded envelope decodes differently")
}

// MARK: Requests

/// The server's checks of a REQUEST before its handler (ServerConnectionHandler.startCall, in
/// its order), then the method's own decoding of the payload.
func admit(_ request: Envelope) {
  guard request.callID != 0 else { return }
  guard request.method.utf8.count <= FrameFormat.maximumMethodBytes else { return }
  let metadataBytes = request.metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
  guard request.metadata.count <= FrameFormat.maximumMetadataEntries,
    metadataBytes <= FrameFormat.maximumMetadataBytes
  else { return }
  _ = RPCLocale(metadataValue: request.metadataValue("locale"))
  guard let method = registry.method(at: request.method) else { return }
  invoke(method, payload: request.payload, metadata: request.metadata)
}

/// One request payload for `info`'s method, as a REQUEST that passed the envelope checks.
func fuzzRequest(method info: MethodInfo, payload: [UInt8]) {
  invoke(registry.method(at: info.path)!, payload: payload, metadata: [])
}

/// The method's size check, then its registered code: decoding (with the check for U+0000 in
/// strings) up to the stub handler. A request is either refused with an RPC error or reaches
/// the handler (or a handler the registration itself holds, as `Health/CheckSession`'s).
func invoke(_ method: RegisteredMethod, payload: [UInt8], metadata: [Metadata]) {
  guard payload.count <= method.maximumRequestBytes else { return }
  let context = ServerContext(
    callID: 1, method: method.info.path, metadata: metadata, deadline: nil,
    peer: "127.0.0.1:40000", logger: logger)
  _ = context.bearerToken
  let sink = RawResponseSink { _ in preconditionFailure("a stub handler wrote a message") }
  let outcome = runBlocking { () async -> (any Error)? in
    do {
      _ = try await method.invoke(RequestBytes(payload), context, sink)
      return nil
    } catch {
      return error
    }
  }
  switch outcome {
  case nil, is HandlerNotRun, is RPCError: break
  case let error?: preconditionFailure("decoding threw \(error), not an RPC error")
  }
}

/// A value handed from a task to the thread waiting for it.
final class Box<T>: @unchecked Sendable {
  // Written by the task before it signals, read by the waiter after.
  var value: T?
}

/// Runs `body`, which never waits on anything outside itself, to its end.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
  let box = Box<T>()
  let done = DispatchSemaphore(value: 0)
  Task {
    box.value = await body()
    done.signal()
  }
  done.wait()
  return box.value!
}

// MARK: JSON

/// JSON text for `info`'s request: parsed and turned into the binary message; a message that
/// comes out goes through the method's decoding, and printed as JSON and parsed again, it gives
/// the same bytes.
func fuzzJSON(method info: MethodInfo, _ bytes: [UInt8]) {
  let descriptor = APIContract.descriptorsByName[info.requestType]!
  let text = String(decoding: bytes, as: UTF8.self)
  guard let binary = try? ProtoJSON.decode(text, as: descriptor) else { return }
  invoke(registry.method(at: info.path)!, payload: binary, metadata: [])
  let printed: String
  do {
    printed = try ProtoJSON.encode(binary, as: descriptor)
  } catch {
    preconditionFailure("the binary form of parsed JSON does not print: \(error)")
  }
  do {
    let again = try ProtoJSON.decode(printed, as: descriptor)
    precondition(again == binary, "printed JSON parses to other bytes:\n\(printed)")
  } catch {
    preconditionFailure("printed JSON does not parse: \(error)\n\(printed)")
  }
}

/// Binary bytes of `info`'s request printed as JSON; what prints parses again.
func fuzzBinaryToJSON(method info: MethodInfo, _ bytes: [UInt8]) {
  let descriptor = APIContract.descriptorsByName[info.requestType]!
  guard let printed = try? ProtoJSON.encode(bytes, as: descriptor) else { return }
  _ = try? ProtoJSON.encode(bytes, as: descriptor, compact: true)
  do {
    _ = try ProtoJSON.decode(printed, as: descriptor)
  } catch {
    preconditionFailure("printed JSON does not parse: \(error)\n\(printed)")
  }
}
