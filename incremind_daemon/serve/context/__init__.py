"""The preloaded context: managed blocks in the agents' instruction files, and the hook's files.

Kept free of imports: ``incremind hook`` loads ``anchor`` from this package and
must not pay for the store.
"""
