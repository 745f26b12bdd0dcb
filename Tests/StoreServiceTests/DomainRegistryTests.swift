import HearthCore
import Testing

@testable import StoreService

/// The one list of household domains (`HouseholdDomains`) and the store's tables of them
/// (`StoreDomains`) name the same domains in the same order, with the same entity kinds.
@Suite("The household's domains: one list, and the store keeps each")
struct DomainRegistryTests {
    @Test("the store keeps every domain of the list, in its order, with its kinds")
    func storeMatchesList() {
        let storeKinds: [Set<String>] = StoreDomains.all.map { domain in domain.entityKinds }
        let listKinds: [Set<String>] = HouseholdDomains.all.map { domain in domain.entityKinds }
        #expect(storeKinds == listKinds)
        for domain in HouseholdDomains.all {
            for kind in domain.entityKinds {
                #expect(HouseholdDomains.domain(of: kind)?.name == domain.name)
                let kept: Set<String>? = (try? StoreDomains.domain(of: kind)).map { store in store.entityKinds }
                #expect(kept == domain.entityKinds)
            }
        }
    }

    @Test("an operation on a kind no domain keeps is refused by the list, naming the kinds it knows")
    func unknownKind() throws {
        let unknown = try Operation(
            json: [
                "id": "0f0f0000-0000-4000-8000-000000000001:1", "time": ["wall": 1, "logical": 0],
                "entity": ["kind": "bank_account", "id": "x"], "fields": ["balance": ["value": 1, "overwrites": []]],
            ], at: "operation")
        let error = #expect(throws: RuleError.self) { try HouseholdDomains.validate(unknown) }
        #expect(error?.field == "entity.kind" && error?.rule.contains("event_card") == true)
    }
}
