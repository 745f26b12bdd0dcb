/// What a subscriber receives from the bus.
public enum BusMessage: Sendable, Equatable {
    /// A valid event on `topic`.
    case event(topic: String, envelope: Envelope)
    /// Events from one publisher went missing; reported just before the event that revealed it.
    case gap(SequenceGap)
    /// A message that was not a valid event, with the reason. Nothing else is affected.
    case rejected(topic: String, error: EnvelopeError)
}
