"""Pure rules engines for Tigris & Euphrates (board game) and the card game.

Nothing here touches I/O, the clock or global randomness: randomness enters
through seeds recorded in setup events, and every draw is an event.
"""
