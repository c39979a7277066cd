/// Spells whole numbers the way US English speakers read them ("25" → "twenty five"), so that
/// training data written with digits ("<piece> to <rank> 3") gets pronunciations.
public enum NumberSpeller {
    private static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// The words for a token made of digits (up to 999,999,999), or nil for anything else.
    public static func words(_ token: String) -> [String]? {
        guard !token.isEmpty, token.count <= 9, token.allSatisfy(\.isASCII), let value = Int(token), value >= 0 else {
            return nil
        }
        return spell(value)
    }

    private static func spell(_ value: Int) -> [String] {
        switch value {
        case 0..<20: return [ones[value]]
        case 20..<100: return [tens[value / 10]] + (value % 10 == 0 ? [] : [ones[value % 10]])
        case 100..<1000: return [ones[value / 100], "hundred"] + (value % 100 == 0 ? [] : spell(value % 100))
        case 1000..<1_000_000:
            return spell(value / 1000) + ["thousand"] + (value % 1000 == 0 ? [] : spell(value % 1000))
        default:
            return spell(value / 1_000_000) + ["million"] + (value % 1_000_000 == 0 ? [] : spell(value % 1_000_000))
        }
    }
}
