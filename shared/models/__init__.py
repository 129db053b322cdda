"""The models a deployment uses, as configuration: which ones are saved and live, where they may
point, how a change reaches every process, the embedded model server's settings, a provider-neutral
probe, start-up steps, and failures said in words. The models themselves are in shared.providers."""
