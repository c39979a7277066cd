/// A string as a JSON string literal, which is also a YAML double-quoted scalar: quotes, backslashes and control
/// characters (DEL included, which YAML does not allow unescaped) escaped; everything else, non-ASCII too, as
/// it is. One writer for manifests (JSON lines) and training data (YAML).
public func quotedString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}
