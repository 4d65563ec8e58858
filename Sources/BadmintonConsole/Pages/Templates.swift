/// The console's pages as mustache templates, compiled once when the server starts. Every value
/// goes through `{{ }}`, which escapes HTML; only the live page's charts go through `{{{ }}}`:
/// they are SVG markup that `LineChart` builds from numbers and escapes itself.
enum Templates {
  /// Every template by name.
  static let all: [String: String] = [
    "layout": layout,
    "sign-in": signIn,
    "players": players,
    "player": player,
    "verifications": verifications,
    "verification": verification,
    "live": live,
    "audit": audit,
    "problem": problem,
  ]

  /// The frame of every page: the head, the nav when signed in, the title and the message.
  static let layout = """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    {{#refreshSeconds}}<meta http-equiv="refresh" content="{{refreshSeconds}}">{{/refreshSeconds}}
    <title>{{title}} · BadmintonBuddy console</title>
    <link rel="stylesheet" href="/console.css">
    </head>
    <body>
    <header>
    <span class="brand">BadmintonBuddy console</span>
    {{#signedIn}}
    <nav>
    <a id="nav-players" href="/players">Players</a>
    <a id="nav-verifications" href="/verifications">Verifications</a>
    <a id="nav-live" href="/live">Live</a>
    <a id="nav-audit" href="/audit">Audit log</a>
    </nav>
    <span id="administrator" class="who">{{administratorNickname}} (#{{administratorID}})</span>
    <form id="sign-out" method="post" action="/sign-out">
    <input type="hidden" name="csrf" value="{{csrf}}">
    <button type="submit">Sign out</button>
    </form>
    {{/signedIn}}
    </header>
    <main>
    <h1>{{title}}</h1>
    {{#message}}
    <div id="message" class="message {{kind}}" role="status">
    <p>{{text}}{{#reason}} <code class="reason">{{reason}}</code>{{/reason}}</p>
    {{#hasViolations}}
    <ul id="violations">
    {{#violations}}
    <li><code>{{field}}</code>: {{text}} <code class="reason">{{reason}}</code></li>
    {{/violations}}
    </ul>
    {{/hasViolations}}
    </div>
    {{/message}}
    {{$main}}{{/main}}
    </main>
    </body>
    </html>

    """

  /// The sign-in form.
  static let signIn = """
    {{<layout}}
    {{$main}}
    <form id="sign-in" method="post" action="/sign-in">
    <input type="hidden" name="csrf" value="{{signInToken}}">
    <p><label for="phone">Phone</label>
    <input id="phone" name="phone" type="text" inputmode="tel" autocomplete="username" maxlength="32" required></p>
    <p><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" maxlength="256" required></p>
    <p><button id="sign-in-submit" type="submit">Sign in</button></p>
    </form>
    <p class="hint">Only administrators can sign in.</p>
    {{/main}}
    {{/layout}}
    """

  /// The player search and its results.
  static let players = """
    {{<layout}}
    {{$main}}
    <form id="search" method="get" action="/players">
    <p><label for="q">Id, phone or nickname</label>
    <input id="q" name="q" type="search" maxlength="64" value="{{query}}">
    <button id="search-submit" type="submit">Find</button></p>
    </form>
    {{#searched}}
    {{#hasResults}}
    <table id="results">
    <thead><tr><th>Id</th><th>Nickname</th><th>Phone</th><th>Self level</th><th>Suspended until</th></tr></thead>
    <tbody>
    {{#results}}
    <tr><td><a href="/players/{{id}}">{{id}}</a></td><td><a href="/players/{{id}}">{{nickname}}</a></td><td>{{phone}}</td><td>{{selfLevel}}</td><td>{{suspendedUntil}}</td></tr>
    {{/results}}
    </tbody>
    </table>
    {{/hasResults}}
    {{^hasResults}}
    <p id="no-results">No players match “{{query}}”.</p>
    {{/hasResults}}
    {{/searched}}
    {{/main}}
    {{/layout}}
    """

  /// One player: profile, levels, reputation, matches, blocks, sessions, suspension, actions.
  static let player = """
    {{<layout}}
    {{$main}}
    {{#detail}}
    <section id="profile">
    <h2>Profile</h2>
    <dl>
    <dt>Id</dt><dd id="player-id">{{id}}</dd>
    <dt>Nickname</dt><dd id="nickname">{{nickname}}</dd>
    <dt>Phone</dt><dd id="phone">{{phone}}</dd>
    <dt>Joined</dt><dd id="joined">{{joined}}</dd>
    <dt>Locale</dt><dd id="locale">{{locale}}</dd>
    </dl>
    </section>
    <section id="levels">
    <h2>Levels</h2>
    <dl>
    <dt>Self</dt><dd id="self-level">{{selfLevel}}</dd>
    <dt>Calculated</dt><dd id="calculated-level">{{calculatedLevel}}</dd>
    <dt>Verified max</dt><dd id="verified-max-level">{{verifiedMaxLevel}}</dd>
    </dl>
    </section>
    <section id="reputation">
    <h2>Reputation</h2>
    <dl>
    <dt>Games played</dt><dd id="games-played">{{gamesPlayed}}</dd>
    <dt>Wins</dt><dd id="wins">{{wins}}</dd>
    <dt>Punctuality</dt><dd id="punctuality">{{punctuality}}</dd>
    <dt>Character rating</dt><dd id="character-rating">{{characterRating}}</dd>
    <dt>Skill accuracy</dt><dd id="skill-accuracy">{{skillAccuracy}}</dd>
    <dt>Evaluations</dt><dd id="evaluation-count">{{evaluationCount}}</dd>
    </dl>
    </section>
    <section id="matches">
    <h2>Recent matches</h2>
    {{#hasMatches}}
    <table id="recent-matches">
    <thead><tr><th>Id</th><th>Starts (UTC)</th><th>Mode</th><th>State</th></tr></thead>
    <tbody>
    {{#matches}}
    <tr><td>{{id}}</td><td>{{start}}</td><td>{{mode}}</td><td>{{state}}</td></tr>
    {{/matches}}
    </tbody>
    </table>
    {{/hasMatches}}
    {{^hasMatches}}<p>No matches yet.</p>{{/hasMatches}}
    </section>
    <section id="safety">
    <h2>Blocks and sessions</h2>
    <dl>
    <dt>Blocking</dt><dd id="blocking">{{blocking}}</dd>
    <dt>Blocked by</dt><dd id="blocked-by">{{blockedBy}}</dd>
    <dt>Open sessions</dt><dd id="open-sessions">{{openSessions}}</dd>
    </dl>
    <form id="end-sessions" method="post" action="/players/{{id}}/end-sessions">
    <input type="hidden" name="csrf" value="{{csrf}}">
    <button id="end-sessions-submit" type="submit">End all sessions</button>
    </form>
    </section>
    <section id="suspension-section">
    <h2>Suspension</h2>
    <p id="suspension">{{suspensionText}}</p>
    {{#suspendedBy}}<p id="suspended-by">By administrator #{{administratorID}} at {{at}}.</p>{{/suspendedBy}}
    <form id="suspend" method="post" action="/players/{{id}}/suspend">
    <input type="hidden" name="csrf" value="{{csrf}}">
    <p><label for="reason">Reason</label>
    <textarea id="reason" name="reason" maxlength="500" required>{{reasonDraft}}</textarea></p>
    <p><label for="until">Until (UTC)</label>
    <input id="until" name="until" type="datetime-local" value="{{untilDraft}}">
    <label for="for">or for</label>
    <select id="for" name="for">
    <option value="">—</option>
    <option value="1d">1 day</option>
    <option value="7d">7 days</option>
    <option value="30d">30 days</option>
    <option value="365d">365 days</option>
    </select></p>
    <p><button id="suspend-submit" type="submit">Suspend</button></p>
    </form>
    {{#suspended}}
    <form id="lift" method="post" action="/players/{{id}}/lift">
    <input type="hidden" name="csrf" value="{{csrf}}">
    <p><label for="note">Note</label>
    <input id="note" name="note" type="text" maxlength="500" value="{{noteDraft}}"></p>
    <p><button id="lift-submit" type="submit">Lift suspension</button></p>
    </form>
    {{/suspended}}
    </section>
    {{/detail}}
    {{/main}}
    {{/layout}}
    """

  /// The verification requests that wait for review, oldest first.
  static let verifications = """
    {{<layout}}
    {{$main}}
    {{#hasRequests}}
    <table id="queue">
    <thead><tr><th>Id</th><th>Player</th><th>Level asked</th><th>Championship</th><th>Submitted (UTC)</th><th>Waiting for</th><th></th></tr></thead>
    <tbody>
    {{#requests}}
    <tr><td>{{id}}</td><td><a href="/players/{{playerID}}">{{nickname}}</a></td><td>{{levelAsked}}</td><td>{{kind}}</td><td>{{submitted}}</td><td class="waiting">{{waiting}}</td><td><a class="review" href="/verifications/{{id}}">Review</a></td></tr>
    {{/requests}}
    </tbody>
    </table>
    {{/hasRequests}}
    {{^hasRequests}}<p id="no-verifications">No requests wait for review.</p>{{/hasRequests}}
    {{/main}}
    {{/layout}}
    """

  /// One verification request: its facts, its certificate shown in the page, and the review.
  static let verification = """
    {{<layout}}
    {{$main}}
    {{#request}}
    <section id="facts">
    <dl>
    <dt>Id</dt><dd id="verification-id">{{id}}</dd>
    <dt>Player</dt><dd id="player"><a href="/players/{{playerID}}">{{nickname}}</a> (#{{playerID}})</dd>
    <dt>Level asked</dt><dd id="level-asked">{{levelAsked}}</dd>
    <dt>Championship</dt><dd id="kind">{{kind}}</dd>
    <dt>Submitted</dt><dd id="submitted">{{submitted}}</dd>
    <dt>State</dt><dd id="state">{{state}}</dd>
    {{#waiting}}<dt>Waiting for</dt><dd id="waiting">{{waiting}}</dd>{{/waiting}}
    {{#review}}
    <dt>Reviewed by</dt><dd id="reviewer">{{#reviewerID}}<a href="/players/{{reviewerID}}">#{{reviewerID}}</a>{{/reviewerID}}</dd>
    <dt>Reviewed</dt><dd id="reviewed-at">{{at}}</dd>
    <dt>Note</dt><dd id="review-note">{{note}}</dd>
    {{/review}}
    <dt>Certificate</dt><dd id="document">{{document}}</dd>
    </dl>
    </section>
    <section id="certificate-section">
    <h2>Certificate</h2>
    {{#image}}<p><img id="certificate" class="certificate" src="{{documentHref}}" alt="Championship certificate of {{nickname}}"></p>{{/image}}
    {{#pdf}}<object id="certificate" class="certificate" data="{{documentHref}}" type="application/pdf">
    <p id="certificate-fallback">This browser does not show the PDF here: <a href="{{documentHref}}">open the certificate</a>.</p>
    </object>{{/pdf}}
    {{#unshowable}}<p id="certificate-unshowable">The console cannot show a certificate of this type.</p>{{/unshowable}}
    {{^unshowable}}<p><a id="open-certificate" href="{{documentHref}}">Open the certificate by itself</a></p>{{/unshowable}}
    </section>
    {{#pending}}
    <section id="review-section">
    <h2>Review</h2>
    <form id="review" method="post" action="/verifications/{{id}}/review">
    <input type="hidden" name="csrf" value="{{csrf}}">
    <p><label for="note">Note</label>
    <textarea id="note" name="note" maxlength="500">{{noteDraft}}</textarea></p>
    <p><button id="approve" type="submit" name="decision" value="approve">Approve: level {{levelAsked}}</button>
    <button id="reject" type="submit" name="decision" value="reject">Reject</button></p>
    </form>
    </section>
    {{/pending}}
    {{/request}}
    <p><a id="back" href="/verifications">Back to Verifications</a></p>
    {{/main}}
    {{/layout}}
    """

  /// The live figures: sizes now, and each busy method's calls and latency over the window.
  static let live = """
    {{<layout}}
    {{$main}}
    <p id="live-at" class="hint">Figures at {{at}}: a point every {{interval}} over the last {{span}}. The page reloads itself every {{refreshSeconds}} s.</p>
    <section id="sizes">
    <dl>
    <dt>Open connections</dt><dd id="open-connections">{{openConnections}}</dd>
    <dt>Open streams</dt><dd id="open-streams">{{openStreams}}</dd>
    <dt>Match board</dt><dd id="match-board">{{matchBoard}}</dd>
    <dt>Nearby index</dt><dd id="nearby-index">{{nearbyIndex}}</dd>
    <dt>Store commits</dt><dd id="commit-latency">{{commitLatency}}</dd>
    </dl>
    </section>
    {{#hasCalls}}
    <table id="methods">
    <thead><tr><th>Method</th><th>Calls</th><th>Calls/s now</th><th>p50 now</th><th>p99 now</th></tr></thead>
    <tbody>
    {{#methods}}
    <tr><td><code>{{method}}</code></td><td>{{calls}}</td><td>{{rate}}</td><td>{{p50}}</td><td>{{p99}}</td></tr>
    {{/methods}}
    </tbody>
    </table>
    {{#sections}}
    <section class="method" data-method="{{method}}">
    <h2><code>{{method}}</code></h2>
    <p class="calls">{{calls}}</p>
    <div class="charts">
    {{{rateChart}}}
    {{{latencyChart}}}
    </div>
    </section>
    {{/sections}}
    {{/hasCalls}}
    {{^hasCalls}}<p id="no-calls">{{emptyWindow}}</p>{{/hasCalls}}
    {{/main}}
    {{/layout}}
    """

  /// The audit log, newest first, a page at a time.
  static let audit = """
    {{<layout}}
    {{$main}}
    {{#hasEntries}}
    <table id="audit">
    <thead><tr><th>Id</th><th>Time (UTC)</th><th>Administrator</th><th>Action</th><th>Player</th><th>Note</th></tr></thead>
    <tbody>
    {{#entries}}
    <tr><td>{{id}}</td><td>{{at}}</td><td>{{administratorID}}</td><td>{{action}}</td><td>{{#playerID}}<a href="/players/{{playerID}}">{{playerID}}</a>{{/playerID}}</td><td>{{note}}</td></tr>
    {{/entries}}
    </tbody>
    </table>
    {{/hasEntries}}
    {{^hasEntries}}<p id="no-entries">No entries.</p>{{/hasEntries}}
    <p class="paging">
    {{#paged}}<a id="newest" href="/audit">Newest</a>{{/paged}}
    {{#older}}<a id="older" href="/audit?before={{older}}">Older</a>{{/older}}
    </p>
    {{/main}}
    {{/layout}}
    """

  /// A page that says what went wrong: an expired form, a page not found, an error.
  static let problem = """
    {{<layout}}
    {{$main}}
    {{#link}}<p><a id="continue" href="{{href}}">{{text}}</a></p>{{/link}}
    {{/main}}
    {{/layout}}
    """

  /// The console's stylesheet, served at /console.css.
  static let stylesheet = """
    body { font-family: system-ui, sans-serif; margin: 0; color: #1c1c1c; background: #fafafa; }
    header { display: flex; align-items: center; gap: 1.5rem; padding: 0.6rem 1.5rem;
      background: #1f4e3d; color: #fff; }
    header a { color: #fff; }
    header nav { display: flex; gap: 1rem; }
    header .who { margin-left: auto; }
    header form { margin: 0; }
    .brand { font-weight: 600; }
    main { padding: 1rem 1.5rem; max-width: 60rem; }
    table { border-collapse: collapse; margin: 0.5rem 0; }
    th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
    dl { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; }
    dt { font-weight: 600; }
    dd { margin: 0; }
    section { margin-bottom: 1.5rem; }
    label { display: inline-block; min-width: 7rem; }
    textarea { width: 30rem; height: 4rem; }
    .message { padding: 0.5rem 1rem; border-radius: 4px; margin: 0.5rem 0; }
    .message.error { background: #fde8e8; border: 1px solid #e0a0a0; }
    .message.done { background: #e6f4ea; border: 1px solid #9fcfaf; }
    .reason { color: #555; }
    .hint { color: #555; }
    img.certificate { max-width: 100%; border: 1px solid #ccc; }
    object.certificate { width: 100%; height: 40rem; border: 1px solid #ccc; }
    .charts { display: flex; flex-wrap: wrap; gap: 1rem; }
    .chart { background: #fff; border: 1px solid #ddd; }
    .chart text { font-size: 11px; fill: #444; font-family: system-ui, sans-serif; }

    """
}
