"""How a round is played: the flow shared by all families and each family's book."""
