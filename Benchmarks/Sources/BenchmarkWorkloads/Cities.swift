public import BadmintonDomain

/// A city the synthetic players live around.
public struct City: Sendable {
  /// The city's name.
  public var name: String
  /// Its centre.
  public var center: Coordinate
  /// How many players it has relative to the others (roughly its metro population in millions).
  public var weight: Double
  /// Its offset from UTC in hours, near enough to place evening games in the evening.
  public var utcOffsetHours: Int
}

/// Fifty real cities where badminton is played, weighted by their metro population, so that the
/// players cluster as real ones do: many in a few big cities, fewer elsewhere.
public let cities: [City] = [
  City(
    name: "Shanghai", center: Coordinate(latitude: 31.230, longitude: 121.474), weight: 24,
    utcOffsetHours: 8),
  City(
    name: "Beijing", center: Coordinate(latitude: 39.904, longitude: 116.407), weight: 21,
    utcOffsetHours: 8),
  City(
    name: "Guangzhou", center: Coordinate(latitude: 23.129, longitude: 113.264), weight: 18,
    utcOffsetHours: 8),
  City(
    name: "Shenzhen", center: Coordinate(latitude: 22.543, longitude: 114.058), weight: 17,
    utcOffsetHours: 8),
  City(
    name: "Chengdu", center: Coordinate(latitude: 30.573, longitude: 104.066), weight: 16,
    utcOffsetHours: 8),
  City(
    name: "Chongqing", center: Coordinate(latitude: 29.563, longitude: 106.551), weight: 16,
    utcOffsetHours: 8),
  City(
    name: "Tianjin", center: Coordinate(latitude: 39.343, longitude: 117.362), weight: 13,
    utcOffsetHours: 8),
  City(
    name: "Wuhan", center: Coordinate(latitude: 30.593, longitude: 114.305), weight: 12,
    utcOffsetHours: 8),
  City(
    name: "Xi'an", center: Coordinate(latitude: 34.341, longitude: 108.940), weight: 12,
    utcOffsetHours: 8),
  City(
    name: "Hangzhou", center: Coordinate(latitude: 30.274, longitude: 120.155), weight: 11,
    utcOffsetHours: 8),
  City(
    name: "Nanjing", center: Coordinate(latitude: 32.060, longitude: 118.797), weight: 9,
    utcOffsetHours: 8),
  City(
    name: "Hong Kong", center: Coordinate(latitude: 22.319, longitude: 114.169), weight: 7,
    utcOffsetHours: 8),
  City(
    name: "Taipei", center: Coordinate(latitude: 25.033, longitude: 121.565), weight: 7,
    utcOffsetHours: 8),
  City(
    name: "Singapore", center: Coordinate(latitude: 1.352, longitude: 103.820), weight: 6,
    utcOffsetHours: 8),
  City(
    name: "Kuala Lumpur", center: Coordinate(latitude: 3.139, longitude: 101.687), weight: 8,
    utcOffsetHours: 8),
  City(
    name: "Jakarta", center: Coordinate(latitude: -6.209, longitude: 106.846), weight: 30,
    utcOffsetHours: 7),
  City(
    name: "Surabaya", center: Coordinate(latitude: -7.258, longitude: 112.752), weight: 9,
    utcOffsetHours: 7),
  City(
    name: "Bangkok", center: Coordinate(latitude: 13.756, longitude: 100.502), weight: 11,
    utcOffsetHours: 7),
  City(
    name: "Manila", center: Coordinate(latitude: 14.600, longitude: 120.984), weight: 14,
    utcOffsetHours: 8),
  City(
    name: "Ho Chi Minh City", center: Coordinate(latitude: 10.823, longitude: 106.630), weight: 9,
    utcOffsetHours: 7),
  City(
    name: "Hanoi", center: Coordinate(latitude: 21.028, longitude: 105.834), weight: 8,
    utcOffsetHours: 7),
  City(
    name: "Seoul", center: Coordinate(latitude: 37.567, longitude: 126.978), weight: 25,
    utcOffsetHours: 9),
  City(
    name: "Tokyo", center: Coordinate(latitude: 35.676, longitude: 139.650), weight: 37,
    utcOffsetHours: 9),
  City(
    name: "Osaka", center: Coordinate(latitude: 34.694, longitude: 135.502), weight: 19,
    utcOffsetHours: 9),
  City(
    name: "Delhi", center: Coordinate(latitude: 28.614, longitude: 77.209), weight: 30,
    utcOffsetHours: 5),
  City(
    name: "Mumbai", center: Coordinate(latitude: 19.076, longitude: 72.878), weight: 21,
    utcOffsetHours: 5),
  City(
    name: "Bengaluru", center: Coordinate(latitude: 12.972, longitude: 77.595), weight: 13,
    utcOffsetHours: 5),
  City(
    name: "Hyderabad", center: Coordinate(latitude: 17.385, longitude: 78.487), weight: 10,
    utcOffsetHours: 5),
  City(
    name: "Chennai", center: Coordinate(latitude: 13.083, longitude: 80.271), weight: 11,
    utcOffsetHours: 5),
  City(
    name: "Kolkata", center: Coordinate(latitude: 22.573, longitude: 88.364), weight: 15,
    utcOffsetHours: 5),
  City(
    name: "Pune", center: Coordinate(latitude: 18.520, longitude: 73.857), weight: 7,
    utcOffsetHours: 5),
  City(
    name: "Dhaka", center: Coordinate(latitude: 23.810, longitude: 90.413), weight: 22,
    utcOffsetHours: 6),
  City(
    name: "Dubai", center: Coordinate(latitude: 25.205, longitude: 55.271), weight: 3,
    utcOffsetHours: 4),
  City(
    name: "London", center: Coordinate(latitude: 51.507, longitude: -0.128), weight: 9,
    utcOffsetHours: 0),
  City(
    name: "Copenhagen", center: Coordinate(latitude: 55.676, longitude: 12.568), weight: 2,
    utcOffsetHours: 1),
  City(
    name: "Paris", center: Coordinate(latitude: 48.857, longitude: 2.352), weight: 11,
    utcOffsetHours: 1),
  City(
    name: "Berlin", center: Coordinate(latitude: 52.520, longitude: 13.405), weight: 4,
    utcOffsetHours: 1),
  City(
    name: "Amsterdam", center: Coordinate(latitude: 52.368, longitude: 4.904), weight: 2,
    utcOffsetHours: 1),
  City(
    name: "Madrid", center: Coordinate(latitude: 40.417, longitude: -3.704), weight: 7,
    utcOffsetHours: 1),
  City(
    name: "Moscow", center: Coordinate(latitude: 55.756, longitude: 37.617), weight: 12,
    utcOffsetHours: 3),
  City(
    name: "New York", center: Coordinate(latitude: 40.713, longitude: -74.006), weight: 19,
    utcOffsetHours: -5),
  City(
    name: "Toronto", center: Coordinate(latitude: 43.653, longitude: -79.383), weight: 6,
    utcOffsetHours: -5),
  City(
    name: "San Francisco", center: Coordinate(latitude: 37.775, longitude: -122.419), weight: 7,
    utcOffsetHours: -8),
  City(
    name: "Los Angeles", center: Coordinate(latitude: 34.052, longitude: -118.244), weight: 13,
    utcOffsetHours: -8),
  City(
    name: "Vancouver", center: Coordinate(latitude: 49.283, longitude: -123.121), weight: 3,
    utcOffsetHours: -8),
  City(
    name: "Seattle", center: Coordinate(latitude: 47.606, longitude: -122.332), weight: 4,
    utcOffsetHours: -8),
  City(
    name: "Sydney", center: Coordinate(latitude: -33.869, longitude: 151.209), weight: 5,
    utcOffsetHours: 10),
  City(
    name: "Melbourne", center: Coordinate(latitude: -37.814, longitude: 144.963), weight: 5,
    utcOffsetHours: 10),
  City(
    name: "Auckland", center: Coordinate(latitude: -36.848, longitude: 174.763), weight: 2,
    utcOffsetHours: 12),
  City(
    name: "São Paulo", center: Coordinate(latitude: -23.551, longitude: -46.633), weight: 22,
    utcOffsetHours: -3),
]
