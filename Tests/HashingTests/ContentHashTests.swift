import Foundation
import Hashing
import Testing

@Suite("Content hashes")
struct ContentHashTests {
    @Test("SHA-256 matches the FIPS 180-4 examples, in lowercase hex")
    func sha256() {
        #expect(ContentHash.sha256Hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            ContentHash.sha256Hex(Data("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            ContentHash.sha256Hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(ContentHash.sha256(Data("abc".utf8)).count == 32)
    }

    @Test("Hex is two lowercase digits a byte, leading zeros kept")
    func hex() {
        #expect(ContentHash.hex([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(ContentHash.hex([UInt8]()) == "")
        #expect(ContentHash.hex(ContentHash.sha256(Data("abc".utf8)).prefix(2)) == "ba78")
    }
}

@Suite("File fingerprints")
struct FileFingerprintTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fingerprint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("one".utf8).write(to: folder.appendingPathComponent("a.txt"))
        try Data("two".utf8).write(to: folder.appendingPathComponent("sub/b.txt"))
        return folder
    }

    @Test("Each file is hashed as name:length, a line break and its bytes, in the order given")
    func format() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("a.txt")
        let b = folder.appendingPathComponent("sub/b.txt")
        #expect(
            try ContentHash.fingerprint(of: [("a.txt", a), ("b.txt", b)])
                == ContentHash.sha256Hex(Data("a.txt:3\noneb.txt:3\ntwo".utf8)))
        #expect(
            try ContentHash.fingerprint(ofFolder: folder)
                == ContentHash.sha256Hex(Data("/a.txt:3\none/sub/b.txt:3\ntwo".utf8)))
    }

    @Test("A missing file is an error naming it, never skipped")
    func missingFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("feat.params")
        #expect(throws: FingerprintError(path: missing.path, reason: "no such file")) {
            try ContentHash.fingerprint(of: [
                ("a.txt", folder.appendingPathComponent("a.txt")), ("feat.params", missing),
            ])
        }
    }
}
