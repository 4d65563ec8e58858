/// The weekly schedule a player shares with friends: for each day, free, busy or evenings only,
/// with a short note.
public enum ScheduleRules {
  /// Days a schedule shows: today and the 6 after it.
  public static let weekLength = 7
  /// The longest note, in characters (grapheme clusters).
  public static let maximumNoteLength = 200
  /// The most UTF-8 bytes a note may have, so that 200 characters cannot hide a large payload.
  public static let maximumNoteBytes = 8_000
  /// How far ahead a day may be set: a year.
  public static let maximumDaysAhead = 366
  /// The statuses a day may have: 0 unknown, 1 free, 2 busy, 3 evening only.
  public static let statuses = 0...3

  /// The dates of the week that starts `today`.
  public static func week(startingOn today: LocalDate) -> [LocalDate] {
    (0..<weekLength).map { today.adding(days: $0) }
  }

  /// Checks an update of `date` to `status` with `note`, when today is `today`: a valid date from
  /// today up to a year ahead, a known status and a note of at most 200 characters.
  public static func validateUpdate(date: LocalDate, status: Int, note: String, today: LocalDate)
    throws(DomainError)
  {
    guard date.isValid else {
      throw .invalidField(
        "date", "DATE_INVALID", en: "The date is not a calendar date.", zhCN: "日期无效。")
    }
    guard date >= today else {
      throw DomainError(
        .failedPrecondition, "CANNOT_UPDATE_PAST_DATE",
        en: "Days before today cannot be changed.", zhCN: "无法修改今天之前的日期。")
    }
    guard date.days(since: today) <= maximumDaysAhead else {
      throw .invalidField(
        "date", "DATE_TOO_FAR", en: "Days can be set up to a year ahead.",
        zhCN: "最多只能设置一年以内的日期。")
    }
    guard statuses.contains(status) else {
      throw .invalidField(
        "status", "DAY_STATUS_INVALID",
        en: "The status must be unknown, free, busy or evening only.",
        zhCN: "状态须为未知、空闲、忙碌或仅晚上有空。")
    }
    guard note.utf8.count <= maximumNoteBytes, note.count <= maximumNoteLength else {
      throw .invalidField(
        "note", "NOTE_TOO_LONG", en: "The note may have at most 200 characters.",
        zhCN: "备注不能超过200字。")
    }
  }
}
