/// How long a test waits for something that must happen before it calls the wait a hang.
///
/// The bound decides no pass: the awaited frame, close or condition ends every wait. It only
/// turns a real hang into a failure. It is minutes, not seconds, because every test of the
/// package shares Swift's cooperative threads (two on a two-core machine): under a full run a
/// test's task, or the server handler it waits on, can wait tens of seconds for a thread while
/// other tests compute. A 30-second bound failed the graceful-drain test in loaded runs that
/// way, with trivial tests of the same run taking 33 seconds from start to end.
let hangBound: Duration = .seconds(300)
