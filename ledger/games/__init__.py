"""How a round is played: the flow shared by all families and each family's book.

The flow, in the order a round goes: ``opening`` (the hands, the first cards, the stakes closing,
the dealer's double, the second cards), ``staking`` (a stake and the table's limits), ``turns``
(whose turn it is, and when it ends: ``holder_ends_turn``), ``moves`` (a hand's draw, stand,
split, double down, an ace's value), ``dealer_play`` (the dealer's turn), ``phases`` (entering a
phase, the round's end). Where the families differ, the flow asks the family's book
(``families.book``: ``vingt_un``, ``hoyle``, ``ochko``, ``casino``; ``book`` lists every hook
and constant a book provides; ``private`` holds what the three private games share,
``irregularities`` what was done wrong at the table, VU-23..26)."""
