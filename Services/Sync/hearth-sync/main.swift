import HearthBus
import HearthHost
import SyncService

await HearthProcess.run("sync") { setup in
    try SyncService(
        configuration: setup.configuration, context: setup.context, device: setup.device,
        keyPair: try DeviceIdentity.keyPair(home: setup.configuration.home), logger: setup.logger)
}
