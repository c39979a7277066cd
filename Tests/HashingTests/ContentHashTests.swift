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
