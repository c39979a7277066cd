import Foundation
import TrainingData

/// Apple's chess example, written once in Swift and once in YAML.
enum ChessFixture {
    static let classes: [String: [String]] = [
        "piece": ["pawn", "rook", "knight", "bishop", "queen", "king"],
        "royal": ["queen", "king"],
        "rank": ["1", "2", "3", "4", "5", "6", "7", "8"],
    ]

    static func swiftData() -> CustomLanguageModelData {
        CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "com.example.chess", version: "1.0") {
            PhraseCount(phrase: "play the albin counter gambit", count: 10)
            PhraseCount(phrase: "play the winawer variation", count: 5)
            PhraseCountsFromTemplates(classes: classes) {
                TemplatePhraseCountGenerator.Template("<piece> to <royal> <piece> <rank>", count: 10_000)
            }
            CustomPronunciation(grapheme: "winawer", phonemes: ["w I n aU @r"])
        }
    }

    static let yaml = """
        locale: en-US
        identifier: com.example.chess
        version: "1.0"
        private: false
        phrases:
          - {phrase: "play the albin counter gambit", count: 10}
          - phrase: play the winawer variation
            count: 5
        templates:
          - classes:
              piece: [pawn, rook, knight, bishop, queen, king]
              royal: [queen, king]
              rank: ["1", "2", "3", "4", "5", "6", "7", "8"]
            items:
              - {template: "<piece> to <royal> <piece> <rank>", count: 10000}
        pronunciations:
          - {grapheme: winawer, phonemes: ["w I n aU @r"]}
        """
}
