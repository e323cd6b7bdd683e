//! Boards of games from both corpora, drawn as text in the initial state and after two joint
//! moves, each checked by eye against the rules: where the pieces start, that a move takes a
//! piece from one cell to another (and a capture removes one), whose pieces are whose, and what
//! is left in the panel. Together with `boards.rs` these are the games the inference is held to.

mod common;

use board::Style;
use common::{after, game, inferred};
use propnet::PropnetMachine;

/// (game, joint moves, the drawing of the initial state, the drawing after the moves); each
/// drawing starts with a newline, for the table's sake.
type Drawn = (&'static str, &'static [&'static [&'static str]], &'static str, &'static str);

const DRAWN: &[Drawn] = &[
    (
        "reversi",
        &[&["(move 4 6)", "noop"], &["noop", "(move 3 4)"]],
        r"
8  . . . . . . . .
7  . . . . . . . .
6  . . . . . . . .
5  . . . R B . . .
4  . . . B R . . .
3  . . . . . . . .
2  . . . . . . . .
1  . . . . . . . .
   1 2 3 4 5 6 7 8
control: black
",
        r"
8  . . . . . . . .
7  . . . . . . . .
6  . . . B . . . .
5  . . . B B . . .
4  . . R R R . . .
3  . . . . . . . .
2  . . . . . . . .
1  . . . . . . . .
   1 2 3 4 5 6 7 8
control: black
",
    ),
    (
        "othello-comp2007",
        &[&["(mark 3 5)", "noop"], &["noop", "(mark 3 4)"]],
        r"
8  . . . . . . . .
7  . . . . . . . .
6  . . . . . . . .
5  . . . R B . . .
4  . . . B R . . .
3  . . . . . . . .
2  . . . . . . . .
1  . . . . . . . .
   1 2 3 4 5 6 7 8
control: black
",
        r"
8  . . . . . . . .
7  . . . . . . . .
6  . . . . . . . .
5  . . B B B . . .
4  . . R R R . . .
3  . . . . . . . .
2  . . . . . . . .
1  . . . . . . . .
   1 2 3 4 5 6 7 8
control: black
",
    ),
    (
        "englishDraughts",
        &[&["(move b 3 c 4)", "noop"], &["noop", "(move a 6 b 5)"]],
        r"
8  p . p . p . p .
7  . p . p . p . p
6  p . p . p . p .
5  . . . . . . . .
4  . . . . . . . .
3  . P . P . P . P
2  P . P . P . P .
1  . P . P . P . P
   a b c d e f g h
lasttomove: black
step: 0
",
        r"
8  p . p . p . p .
7  . p . p . p . p
6  . . p . p . p .
5  . p . . . . . .
4  . . P . . . . .
3  . . . P . P . P
2  P . P . P . P .
1  . P . P . P . P
   a b c d e f g h
lasttomove: black
step: 0
",
    ),
    (
        "knightThrough",
        &[&["(move 1 1 2 3)", "noop"], &["noop", "(move 1 7 2 5)"]],
        r"
8  B B B B B B B B
7  B B B B B B B B
6  . . . . . . . .
5  . . . . . . . .
4  . . . . . . . .
3  . . . . . . . .
2  W W W W W W W W
1  W W W W W W W W
   1 2 3 4 5 6 7 8
control: white
",
        r"
8  B B B B B B B B
7  . B B B B B B B
6  . . . . . . . .
5  . B . . . . . .
4  . . . . . . . .
3  . W . . . . . .
2  W W W W W W W W
1  . W W W W W W W
   1 2 3 4 5 6 7 8
control: white
",
    ),
    (
        "breakthroughSmall",
        &[&["(move 1 2 2 3)", "noop"], &["noop", "(move 1 5 2 4)"]],
        r"
6  B B B B B B
5  B B B B B B
4  . . . . . .
3  . . . . . .
2  W W W W W W
1  W W W W W W
   1 2 3 4 5 6
control: white
",
        r"
6  B B B B B B
5  . B B B B B
4  . B . . . .
3  . W . . . .
2  . W W W W W
1  W W W W W W
   1 2 3 4 5 6
control: white
",
    ),
    (
        "amazons",
        &[&["(play 4 1 6 1 1 1)", "noop"], &["noop", "(play 1 7 9 7 2 7)"]],
        r"
10   .  .  .  B  .  .  B  .  .  .
 9   .  .  .  .  .  .  .  .  .  .
 8   .  .  .  .  .  .  .  .  .  .
 7   B  .  .  .  .  .  .  .  .  B
 6   .  .  .  .  .  .  .  .  .  .
 5   .  .  .  .  .  .  .  .  .  .
 4   W  .  .  .  .  .  .  .  .  W
 3   .  .  .  .  .  .  .  .  .  .
 2   .  .  .  .  .  .  .  .  .  .
 1   .  .  .  W  .  .  W  .  .  .
     1  2  3  4  5  6  7  8  9 10
control: white
",
        r"
10   .  .  .  B  .  .  B  .  .  .
 9   .  .  .  .  .  .  .  .  .  .
 8   .  .  .  .  .  .  .  .  .  .
 7   .  a  .  .  .  .  .  .  B  B
 6   .  .  .  .  .  .  .  .  .  .
 5   .  .  .  .  .  .  .  .  .  .
 4   W  .  .  .  .  .  .  .  .  W
 3   .  .  .  .  .  .  .  .  .  .
 2   .  .  .  .  .  .  .  .  .  .
 1   a  .  .  .  .  W  W  .  .  .
     1  2  3  4  5  6  7  8  9 10
control: white
",
    ),
    (
        "alquerque",
        &[&["(move 4 2 3 1)", "noop"], &["noop", "(move 2 2 3 2)"]],
        r"
5  B B . R R
4  B B . R R
3  B B . R R
2  B B . R R
1  B B . R R
   1 2 3 4 5
control: red
score: black 0, red 0
step: 1
",
        r"
5  B B . R R
4  B B . R R
3  B B . R R
2  B . B . R
1  B B R R R
   1 2 3 4 5
control: red
score: black 0, red 0
step: 3
",
    ),
    (
        "eightPuzzle",
        &[&["(move 2 3)"], &["(move 1 3)"]],
        r"
3  6 3 b
2  7 4 1
1  8 5 2
   1 2 3
step: 0
",
        r"
3  b 6 3
2  7 4 1
1  8 5 2
   1 2 3
step: 2
",
    ),
    (
        "lightsOut",
        &[&["(switch 1 1)"], &["(switch 3 3)"]],
        r"
5  n l n l n
4  n l l l n
3  l n n l l
2  n n l n n
1  n l n n n
   1 2 3 4 5
step: 0
",
        r"
5  n l n l n
4  n l n l n
3  l l l n l
2  l n n n n
1  l n n n n
   1 2 3 4 5
step: 2
",
    ),
    (
        "sheepAndWolf",
        &[&["(move c4 c8 c3 c7)", "noop"], &["noop", "(move c1 c1 c2 c2)"]],
        r"
c8   .  .  .  w  .  .  .  .
c7   .  .  .  .  .  .  .  .
c6   .  .  .  .  .  .  .  .
c5   .  .  .  .  .  .  .  .
c4   .  .  .  .  .  .  .  .
c3   .  .  .  .  .  .  .  .
c2   .  .  .  .  .  .  .  .
c1   s  .  s  .  s  .  s  .
    c1 c2 c3 c4 c5 c6 c7 c8
control: wolf
",
        r"
c8   .  .  .  .  .  .  .  .
c7   .  .  w  .  .  .  .  .
c6   .  .  .  .  .  .  .  .
c5   .  .  .  .  .  .  .  .
c4   .  .  .  .  .  .  .  .
c3   .  .  .  .  .  .  .  .
c2   .  s  .  .  .  .  .  .
c1   .  .  s  .  s  .  s  .
    c1 c2 c3 c4 c5 c6 c7 c8
control: wolf
",
    ),
    (
        "linesOfAction",
        &[&["(move c 1 a 3)", "noop"], &["noop", "(move h 3 f 1)"]],
        r"
8  . B B B B B B .
7  W . . . . . . W
6  W . . . . . . W
5  W . . . . . . W
4  W . . . . . . W
3  W . . . . . . W
2  W . . . . . . W
1  . B B B B B B .
   a b c d e f g h
control: black
step: 0
",
        r"
8  . B B B B B B .
7  W . . . . . . W
6  W . . . . . . W
5  W . . . . . . W
4  W . . . . . . W
3  B . . . . . . .
2  W . . . . . . W
1  . B . B B W B .
   a b c d e f g h
control: black
step: 2
",
    ),
    (
        "skirmish",
        &[&["(move 2 1 3 3)", "noop"], &["noop", "(move 2 8 3 6)"]],
        r"
8   r kn  b  q ki  b kn  r
7   p  p  p  p  p  p  p  p
6   .  .  .  .  .  .  .  .
5   .  .  .  .  .  .  .  .
4   .  .  .  .  .  .  .  .
3   .  .  .  .  .  .  .  .
2   P  P  P  P  P  P  P  P
1   R Kn  B  Q Ki  B Kn  R
    1  2  3  4  5  6  7  8
capturecount: black 0, white 0
control: white
step: 1
",
        r"
8   r  .  b  q ki  b kn  r
7   p  p  p  p  p  p  p  p
6   .  . kn  .  .  .  .  .
5   .  .  .  .  .  .  .  .
4   .  .  .  .  .  .  .  .
3   .  . Kn  .  .  .  .  .
2   P  P  P  P  P  P  P  P
1   R  .  B  Q Ki  B Kn  R
    1  2  3  4  5  6  7  8
capturecount: black 0, white 0
control: white
step: 3
",
    ),
    (
        "shogi_ctk",
        &[&["(move 4 i 4 h)", "noop"], &["noop", "(move 4 a 4 b)"]],
        r"
i  LU Kn SU GU Ki GU SU Kn LU
h   . RU  .  .  .  .  . BU  .
g  PU PU PU PU PU PU PU PU PU
f   .  .  .  .  .  .  .  .  .
e   .  .  .  .  .  .  .  .  .
d   .  .  .  .  .  .  .  .  .
c  pu pu pu pu pu pu pu pu pu
b   . bu  .  .  .  .  . ru  .
a  lu kn su gu ki gu su kn lu
    1  2  3  4  5  6  7  8  9
control: black
inhand: black bishop 0, black gold 0, black knight 0, black lance 0, black pawn 0, black rook 0, black silver 0, white bishop 0, white gold 0, white knight 0, white lance 0, white pawn 0, white rook 0, white silver 0
step: 1
",
        r"
i  LU Kn SU  . Ki GU SU Kn LU
h   . RU  . GU  .  .  . BU  .
g  PU PU PU PU PU PU PU PU PU
f   .  .  .  .  .  .  .  .  .
e   .  .  .  .  .  .  .  .  .
d   .  .  .  .  .  .  .  .  .
c  pu pu pu pu pu pu pu pu pu
b   . bu  . gu  .  .  . ru  .
a  lu kn su  . ki gu su kn lu
    1  2  3  4  5  6  7  8  9
control: black
inhand: black bishop 0, black gold 0, black knight 0, black lance 0, black pawn 0, black rook 0, black silver 0, white bishop 0, white gold 0, white knight 0, white lance 0, white pawn 0, white rook 0, white silver 0
step: 3
",
    ),
    (
        "tictactoe_3d_2player",
        &[&["(select 1 1 1)", "noop"], &["noop", "(select 1 2 1)"]],
        r"
1            2            3            4
4  . . . .   4  . . . .   4  . . . .   4  . . . .
3  . . . .   3  . . . .   3  . . . .   3  . . . .
2  . . . .   2  . . . .   2  . . . .   2  . . . .
1  . . . .   1  . . . .   1  . . . .   1  . . . .
   1 2 3 4      1 2 3 4      1 2 3 4      1 2 3 4
control: xplayer
",
        r"
1            2            3            4
4  . . . .   4  . . . .   4  . . . .   4  . . . .
3  . . . .   3  . . . .   3  . . . .   3  . . . .
2  o . . .   2  . . . .   2  . . . .   2  . . . .
1  x . . .   1  . . . .   1  . . . .   1  . . . .
   1 2 3 4      1 2 3 4      1 2 3 4      1 2 3 4
control: xplayer
",
    ),
    (
        "tictactoe_3player",
        &[&["(mark 1 1)", "noop", "noop"], &["noop", "(mark 1 2)", "noop"]],
        r"
5  . . . . .
4  . . . . .
3  . . . . .
2  . . . . .
1  . . . . .
   1 2 3 4 5
control: xplayer
",
        r"
5  . . . . .
4  . . . . .
3  . . . . .
2  o . . . .
1  x . . . .
   1 2 3 4 5
control: zplayer
",
    ),
    (
        "connectFourLarge",
        &[&["(drop 1)", "noop"], &["noop", "(drop 1)"]],
        r"
9   .  .  .  .  .  .  .  .  .  .  .  .
8   .  .  .  .  .  .  .  .  .  .  .  .
7   .  .  .  .  .  .  .  .  .  .  .  .
6   .  .  .  .  .  .  .  .  .  .  .  .
5   .  .  .  .  .  .  .  .  .  .  .  .
4   .  .  .  .  .  .  .  .  .  .  .  .
3   .  .  .  .  .  .  .  .  .  .  .  .
2   .  .  .  .  .  .  .  .  .  .  .  .
1   .  .  .  .  .  .  .  .  .  .  .  .
    1  2  3  4  5  6  7  8  9 10 11 12
control: red
",
        r"
9   .  .  .  .  .  .  .  .  .  .  .  .
8   .  .  .  .  .  .  .  .  .  .  .  .
7   .  .  .  .  .  .  .  .  .  .  .  .
6   .  .  .  .  .  .  .  .  .  .  .  .
5   .  .  .  .  .  .  .  .  .  .  .  .
4   .  .  .  .  .  .  .  .  .  .  .  .
3   .  .  .  .  .  .  .  .  .  .  .  .
2   B  .  .  .  .  .  .  .  .  .  .  .
1   R  .  .  .  .  .  .  .  .  .  .  .
    1  2  3  4  5  6  7  8  9 10 11 12
control: red
",
    ),
    (
        "kono",
        &[&["(jump 4 1 3 1 2 1)", "noop"], &["noop", "(jump 1 2 2 2 3 2)"]],
        r"
4  B B R R
3  B B R R
2  B B R R
1  B B R R
   1 2 3 4
control: red
score: black 0, red 0
step: 1
",
        r"
4  B B R R
3  B B R R
2  . B B R
1  B R R .
   1 2 3 4
control: red
score: black 12, red 12
step: 3
",
    ),
    (
        "quarto",
        &[&["(select p0000)", "noop"], &["noop", "(place p0000 1 1)"]],
        r"
4  . . . .
3  . . . .
2  . . . .
1  . . . .
   1 2 3 4
pool: p0000, p0001, p0010, p0011, p0100, p0101, p0110, p0111, p1000, p1001, p1010, p1011, p1100, p1101, p1110, p1111
selectcontrol: white
",
        r"
4     .    .    .    .
3     .    .    .    .
2     .    .    .    .
1  0000    .    .    .
      1    2    3    4
pool: p0001, p0010, p0011, p0100, p0101, p0110, p0111, p1000, p1001, p1010, p1011, p1100, p1101, p1110, p1111
selectcontrol: black
",
    ),
    (
        "escortLatch",
        &[&["(move a 2 b 3)", "noop"], &["noop", "(move a 7 b 6)"]],
        r"
8   .  .  . bk  .  .  .  .
7  bp bp bp bp bp bp bp bp
6   .  .  .  .  .  .  .  .
5   .  .  .  .  .  .  .  .
4   .  .  .  .  .  .  .  .
3   .  .  .  .  .  .  .  .
2  wp wp wp wp wp wp wp wp
1   .  .  . wk  .  .  .  .
    a  b  c  d  e  f  g  h
control: white
step: 1
",
        r"
8   .  .  . bk  .  .  .  .
7   . bp bp bp bp bp bp bp
6   . bp  .  .  .  .  .  .
5   .  .  .  .  .  .  .  .
4   .  .  .  .  .  .  .  .
3   . wp  .  .  .  .  .  .
2   . wp wp wp wp wp wp wp
1   .  .  . wk  .  .  .  .
    a  b  c  d  e  f  g  h
control: white
step: 3
",
    ),
    (
        "3pffa",
        &[&["(move 1 4 3 5)", "noop", "noop"], &["noop", "(move 4 1 3 3)", "noop"]],
        r"
6  . . . . . . .
5  . . . . . . .
4  R . . . . . B
3  . . . . . . .
2  . . . . . . .
1  . . . Y . . .
   1 2 3 4 5 6 7
capture: blue 0, red 0, yellow 0
control: red
step: 1
",
        r"
6  . . . . . . .
5  . . R . . . .
4  R . . . . . B
3  . . Y . . . .
2  . . . . . . .
1  . . . Y . . .
   1 2 3 4 5 6 7
capture: blue 0, red 0, yellow 0
control: blue
step: 3
",
    ),
    (
        "cittaceot",
        &[&["(mark 1 1)", "noop"], &["noop", "(mark 1 1)"]],
        r"
5  . . . . .
4  . . . . .
3  . . . . .
2  . . . . .
1  . . . . .
   1 2 3 4 5
control: xplayer
",
        r"
5  . . . . .
4  . . . . .
3  x . . . .
2  o . . . .
1  . . . . .
   1 2 3 4 5
control: xplayer
",
    ),
    (
        "tron_10x10",
        &[&["up", "up"], &["up", "up"]],
        r"
11   v  v  v  v  v  v  v  v  v  v  v  v
10   v  .  .  .  .  .  .  .  .  .  .  v
 9   v  .  .  .  .  .  .  .  .  .  .  v
 8   v  .  .  .  .  .  .  .  .  .  .  v
 7   v  .  .  .  .  .  .  .  .  .  .  v
 6   v  .  .  .  .  .  .  .  .  .  .  v
 5   v  .  .  .  .  .  .  .  .  .  .  v
 4   v  .  .  .  .  .  .  .  .  .  .  v
 3   v  .  .  .  .  .  .  .  .  .  .  v
 2   v  .  .  .  .  .  .  .  .  .  .  v
 1   v  .  .  .  .  .  .  .  .  .  .  v
 0   v  v  v  v  v  v  v  v  v  v  v  v
     0  1  2  3  4  5  6  7  8  9 10 11
position: blue 8 8, red 3 3
",
        r"
11   v  v  v  v  v  v  v  v  v  v  v  v
10   v  .  .  .  .  .  .  .  .  .  .  v
 9   v  .  .  .  .  .  .  .  v  .  .  v
 8   v  .  .  .  .  .  .  .  v  .  .  v
 7   v  .  .  .  .  .  .  .  .  .  .  v
 6   v  .  .  .  .  .  .  .  .  .  .  v
 5   v  .  .  .  .  .  .  .  .  .  .  v
 4   v  .  .  v  .  .  .  .  .  .  .  v
 3   v  .  .  v  .  .  .  .  .  .  .  v
 2   v  .  .  .  .  .  .  .  .  .  .  v
 1   v  .  .  .  .  .  .  .  .  .  .  v
 0   v  v  v  v  v  v  v  v  v  v  v  v
     0  1  2  3  4  5  6  7  8  9 10 11
position: blue 8 10, red 3 5
",
    ),
    (
        "knightfight",
        &[
            &["(move 1 1 2 3)", "noop"],
            &["noop", "diag"],
            &["noop", "(move 10 10 9 8)"],
            &["ortho", "noop"],
            &["(move 2 3 1 1)", "noop"],
        ],
        r"
10   .  .  .  .  .  .  .  .  .  B
 9   .  .  .  .  .  .  .  .  .  .
 8   .  .  .  .  .  .  .  .  .  .
 7   .  .  .  .  .  .  .  .  .  .
 6   .  .  .  .  .  .  .  .  .  .
 5   .  .  .  .  .  .  .  .  .  .
 4   .  .  .  .  .  .  .  .  .  .
 3   .  .  .  .  .  .  .  .  .  .
 2   .  .  .  .  .  .  .  .  .  .
 1   W  .  .  .  .  .  .  .  .  .
     1  2  3  4  5  6  7  8  9 10
movecontrol: white
",
        r"
10    .   .   .   .   .   .   .   .   .   a
 9    .   .   .   .   .   .   .   .   a   .
 8    .   .   .   .   .   .   .   a   B   a
 7    .   .   .   .   .   .   .   .   a   .
 6    .   .   .   .   .   .   .   .   .   .
 5    .   .   .   .   .   .   .   .   .   .
 4    a   .   a   .   .   .   .   .   .   .
 3    .   a   .   .   .   .   .   .   .   .
 2    a   .   a   .   .   .   .   .   .   .
 1  a/W   .   .   .   .   .   .   .   .   .
      1   2   3   4   5   6   7   8   9  10
attackcontrol: black
",
    ),
    (
        "mummyMaze2p_2007",
        &[&["(move1 nowhere)", "(move2 nowhere nowhere)"], &["(move1 nowhere)", "(move2 west nowhere)"]],
        r"
8  . . . . . . . .
7  . . . . . . . .
6  . . . . . . . .
5  . M . . . . . .
4  . . . . . . . .
3  e . . . . E . .
2  . . . . . . . .
1  . . . . . . . .
   1 2 3 4 5 6 7 8
blockedeast: 1 2, 1 4, 2 1, 2 3, 2 5, 2 7, 4 2, 4 4, 5 3, 5 4, 5 7, 5 8, 6 1, 6 4, 6 6, 7 7
blockednorth: 1 1, 1 4, 1 6, 1 7, 2 3, 2 4, 2 5, 3 3, 3 6, 4 3, 4 4, 5 3, 5 5, 5 6, 6 2, 6 3, 7 2, 7 5, 7 7, 8 1, 8 3, 8 4, 8 7
control: explorer
step: 1
",
        r"
8  . . . . . . . .
7  . . . . . . . .
6  . . . . . . . .
5  M . . . . . . .
4  . . . . . . . .
3  e . . . . E . .
2  . . . . . . . .
1  . . . . . . . .
   1 2 3 4 5 6 7 8
blockedeast: 1 2, 1 4, 2 1, 2 3, 2 5, 2 7, 4 2, 4 4, 5 3, 5 4, 5 7, 5 8, 6 1, 6 4, 6 6, 7 7
blockednorth: 1 1, 1 4, 1 6, 1 7, 2 3, 2 4, 2 5, 3 3, 3 6, 4 3, 4 4, 5 3, 5 5, 5 6, 6 2, 6 3, 7 2, 7 5, 7 7, 8 1, 8 3, 8 4, 8 7
control: explorer
step: 3
",
    ),
    (
        "crossers3",
        &[&["(go c1 c2)", "(go c8 c9)", "(go c2 c9)"], &["(go c1 c3)", "(go c7 c8)", "(go c3 c9)"]],
        r"
c9   L  .  .  .  .  .  .  .  R
c8   .  .  .  .  .  .  .  .  .
c7   .  .  .  .  .  .  .  .  .
c6   .  .  .  .  .  .  .  .  .
c5   .  .  .  .  .  .  .  .  .
c4   .  .  .  .  .  .  .  .  .
c3   .  .  .  .  .  .  .  .  .
c2   .  .  .  .  .  .  .  .  .
c1   T  .  .  .  .  .  .  .  .
    c1 c2 c3 c4 c5 c6 c7 c8 c9
step: s0
wall: c3 c5 c3 c6, c3 c5 c4 c6, c3 c6 c3 c7, c3 c6 c4 c6, c3 c6 c4 c7, c3 c7 c4 c7, c4 c6 c4 c7, c4 c6 c5 c7, c4 c7 c5 c7
",
        r"
c9   .  .  L  .  .  .  .  .  .
c8   .  .  .  .  .  .  R  .  .
c7   .  .  .  .  .  .  .  .  .
c6   .  .  .  .  .  .  .  .  .
c5   .  .  .  .  .  .  .  .  .
c4   .  .  .  .  .  .  .  .  .
c3   T  .  .  .  .  .  .  .  .
c2   .  .  .  .  .  .  .  .  .
c1   .  .  .  .  .  .  .  .  .
    c1 c2 c3 c4 c5 c6 c7 c8 c9
step: s2
wall: c1 c1 c1 c2, c1 c2 c1 c3, c1 c9 c2 c9, c2 c9 c3 c9, c3 c5 c3 c6, c3 c5 c4 c6, c3 c6 c3 c7, c3 c6 c4 c6, c3 c6 c4 c7, c3 c7 c4 c7, c4 c6 c4 c7, c4 c6 c5 c7, c4 c7 c5 c7, c7 c8 c8 c9, c8 c9 c9 c9
",
    ),
];

#[test]
fn corpus_boards_are_drawn_as_a_person_sees_them() {
    let mut wrong = Vec::new();
    for &(name, moves, initial, later) in DRAWN {
        let Some((desc, net)) = game(name) else { return };
        let mut m = PropnetMachine::new(&net);
        let inference = inferred(&desc, &mut m);
        let board = inference.board().unwrap_or_else(|| panic!("{name}: no board: {inference:?}"));
        let drawn = |props: &[String]| board::text(Some(board), props, Style::default());
        let first = drawn(&after(&mut m, &[]));
        let second = drawn(&after(&mut m, moves));
        for (what, got, want) in [("initial state", first, initial), ("after the moves", second, later)] {
            if got != want[1..] {
                wrong.push(format!("{name}, {what}:\n{got}\nexpected:\n{}", &want[1..]));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Games whose states have no board to draw as one (cells named by one constant, pits and
/// stacks, counters and scores only), with the relations the reason names.
const WITHOUT: &[(&str, &str)] = &[
    ("chineseCheckers6", "step has ordered arguments"),
    ("kalaha_2009", "hand, pit, step have ordered arguments"),
    ("nim1", "heap has ordered arguments"),
    ("gt_prisoner", "blackscore, round, whitescore have ordered arguments"),
];

#[test]
fn corpus_games_without_a_board_fall_back_and_say_why() {
    for &(name, why) in WITHOUT {
        let Some((desc, net)) = game(name) else { return };
        match inferred(&desc, &mut PropnetMachine::new(&net)) {
            board::Inference::Fallback { why: said } => {
                assert!(said.starts_with(why), "{name}: {said}");
                assert!(
                    said.ends_with(
                        "but none holds one content per cell on a board of four cells or more in every state sampled"
                    ),
                    "{name}: {said}"
                );
            }
            found => panic!("{name}: {found:?}"),
        }
    }
}
