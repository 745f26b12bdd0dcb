import HearthBus
