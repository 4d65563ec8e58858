import Foundation

/// The figures of a run, each beside its budget where it has one, printed as they come and
/// kept for the closing table.
public final class Report: @unchecked Sendable {
  /// One line of the table.
  public struct Row: Sendable {
    public var figure: String
    public var measured: String
    public var budget: String
    /// Whether the budget is met; nil for a figure without a budget.
    public var met: Bool?
  }

  private let lock = NSLock()
  private var rows: [Row] = []

  public init() {}

  /// Records a figure; `met` says whether it is within `budget`.
  public func add(_ figure: String, _ measured: String, budget: String = "", met: Bool? = nil) {
    let row = Row(figure: figure, measured: measured, budget: budget, met: met)
    lock.withLock { rows.append(row) }
    let verdict = met.map { $0 ? "  [met]" : "  [MISSED]" } ?? ""
    print("  \(figure): \(measured)\(budget.isEmpty ? "" : "  (budget \(budget))")\(verdict)")
    // Each figure as soon as it is measured, also when the output goes to a file.
    fflush(nil)
  }

  /// Adds a figure whose budget is set for one size of the run only: beside its budget when
  /// `atBudgetSize`, as a plain figure otherwise.
  public func add(
    _ figure: String, _ measured: String, budget: String, met: @autoclosure () -> Bool,
    atBudgetSize: Bool
  ) {
    add(figure, measured, budget: atBudgetSize ? budget : "", met: atBudgetSize ? met() : nil)
  }

  /// Prints a section heading.
  public func section(_ title: String) {
    print("\n== \(title)")
    fflush(nil)
  }

  /// The figures as a Markdown table.
  public var markdown: String {
    var text = "| figure | measured | budget | |\n| --- | --- | --- | --- |\n"
    for row in lock.withLock({ rows }) {
      let verdict = row.met.map { $0 ? "met" : "**missed**" } ?? ""
      text += "| \(row.figure) | \(row.measured) | \(row.budget) | \(verdict) |\n"
    }
    return text
  }

  /// How many budgets were missed.
  public var missed: Int { lock.withLock { rows.filter { $0.met == false }.count } }
}
