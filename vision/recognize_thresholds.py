"""The probabilities and limits a pyramid reading needs (vision/recognize_balls.py), each
with what it was chosen on: the rendered frames it was measured on and what it costs. One
immutable value, so a reader can be given other limits to measure them."""

from __future__ import annotations

from dataclasses import dataclass

from .recognize_thresholds_wood import WoodThresholds


@dataclass(frozen=True, slots=True)
class Thresholds(WoodThresholds):
    """Probabilities needed for a reading."""

    ball: float = 0.99
    #: ... for a ball whose colour reads black or red (``DARK_LETTERS``): the plate and the
    #: hollows are light wood, so such a colour on a place the model leans to a ball is not
    #: the place empty. Path traced glossy balls (their sheen shades the rim as the model was
    #: not fitted on) were `unsure` by the dozen: on 38 frames 41 black and 28 red ones, 21
    #: and 20 of them at P(ball) 0.9-0.99, and one empty place each, at 0.07 and 0.15. Not
    #: stained wood: an empty hollow deep in shade, of the plate's tint, was read stained at
    #: P(ball) 0.94 (2600410, far colours; docs/vision.md, Recognition). Stained wood has a
    #: limit of its own, held to its fellows (``stained_ball``)
    dark_ball: float = 0.9
    #: ... for a ball whose colour reads stained wood, which must then lie no more than
    #: ``stained_unsure_lighter`` (log level) lighter than the median of the frame's balls
    #: read stained at ``ball``, and there must be one (``odd_wood``): an empty hollow deep
    #: in shade has the plate's tint at a stained ball's darkness (2600410 1b1, far colours,
    #: P(ball) 0.94, no stained ball read in the frame), and a light wooden ball in shade
    #: can read stained. On the path traced study sets (3,509 Pylos reads in five looks)
    #: 2,593 stained balls of a plainly stained colour were `unsure` at P(ball) 0.9-0.99.
    #: The 2,444 with such fellows lay a median 0.02 lighter than them, 95 % within 0.46;
    #: the 82 light wooden balls that would have read stained so, a median 1.4 lighter, 78
    #: of them over 0.5. On every level since 2026-12-07: above the base, ``alike_below``
    #: still doubts a place that may be the balls below seen through it (the study sets'
    #: level-2 and level-3 balls read so gained 187 characters, none wrong). From 0.8 (the
    #: same day, 117 characters more on the study sets) it read an empty hollow in shade
    #: stained at P(ball) 0.87, level -2.79, among stained fellows (this project's 9100135
    #: 1c4 through a webcam): back at 0.9 since 2026-12-07's fifth session. A ball read so
    #: counts as unknown to the empty place above it (recognize_through.py,
    #: ``_stained_unsure``): it confirmed fresh 7600096 2c2, a stained ball, empty through
    #: a webcam (docs/vision.md, Recognition, "Stained wood at P(ball) 0.9" and "Stained
    #: wood on every level")
    stained_ball: float = 0.9
    stained_unsure_lighter: float = 0.5
    #: ... for a ball whose colour reads white or light wood (``LIGHT``), which must also be
    #: shaded as a ball is (``light_up``, ``light_centre``): that shading, not the model,
    #: tells such a ball from the light wooden plate. Path traced, 58 light wooden and 25
    #: white balls were `unsure` on 100 frames (31 and 15 at P(ball) 0.9-0.99) against 23
    #: and 8 empty places of their colours, all under 0.7. Read at 0.9, with the rules
    #: after, the benchmark's seeds gained 1.2 points plain and through webcams, path
    #: traced frames 1.6, none wrong (docs/vision.md, Recognition). Only where the ball's
    #: tint is farther than ``wood_plate`` from the plate's: an empty hollow ringed by
    #: balls is shaded as a ball is (600562 1b2, read light wood at 0.96 without it). A
    #: light wooden ball read so judges no other (``plate_coloured``, ``wood_in_hollow``,
    #: ``odd_wood``)
    light_ball: float = 0.9
    #: ... and a light wooden base ball read under ``ball`` must have an outline of this or
    #: this share of its foot's ring the plate's: two empty hollows read light wood at
    #: P(ball) 0.98-0.99, lit by the light off the balls round them (8710087 1a1 in shade,
    #: fresh 9140034 1a4 under glare through a webcam; 0.07 and 0.12, 0.07 and 0.16). Of
    #: 2,000 such balls read right on the study sets, 6 fall in it
    unframed_outline: float = 0.15
    unframed_plate: float = 0.2
    #: ... and from this for a base ball whose colour reads light wood where it looks a
    #: ball in every way the plate cannot (``_shaped`` in recognize_balls.py): seen over
    #: ``shaped_seen`` of it, shaded up by ``shaped_up`` and brighter in the middle by
    #: ``shaped_centre``, outlined by ``shaped_outline``, ``shaped_foot`` of its foot's ring
    #: in view and its tint ``shaped_tint`` off the plate's. On the path traced study sets
    #: the base places left ``?`` at P(ball) 0.5-0.99 that were seen, shaded and outlined so
    #: were 817 light wooden balls, 206 stained ones and 4 empty hollows (3 under 0.7; the
    #: fourth, 7800061 1c3 through a webcam, at 0.76 and 0.062 off the plate's tint). Read
    #: so, 454 light balls more were right and none wrong (docs/vision.md, Recognition,
    #: "Light wood shaped as a ball")
    shaped_ball: float = 0.7
    shaped_seen: float = 0.8
    shaped_up: float = 0.6
    shaped_centre: float = 0.2
    shaped_outline: float = 0.2
    shaped_foot: float = 0.45
    shaped_tint: float = 0.08
    empty: float = 0.99
    #: ... for an empty place on level 3 or 4, which while ``?`` hides the level below from
    #: its own reading; one read under ``empty`` must not look as a ball seen through it
    #: (recognize_through.py, ``unconfirmed``). On the path traced study sets 0.4 points
    #: more characters right, none wrong more (with ``light_up``); level 2 keeps ``empty``
    #: (docs/vision.md, Recognition, "Empty above level 2 from P(empty) 0.95")
    upper_empty: float = 0.95
    #: ... for an empty base hollow: light balls in shadow were read empty at 0.992-0.997 on
    #: fresh frames. (Level 2 keeps ``empty``: an unsure place there would hide the balls
    #: under it from their own reading.)
    base_empty: float = 0.997
    #: ... and the second model's, fitted on path traced frames alone, for any empty place
    #: (vision/recognize_balls.py, ``second_empty``). On the path traced study sets (540
    #: frames, five looks) it leaves 104 of 18,900 empty places read right ``?`` and, after
    #: it, all four of 8400063's balls read empty through a webcam (0.98: 217; 0.9: 47); on
    #: 160 frames path traced after the choice, all 3 balls read empty (8720027 2c1 at 0.94
    #: first), at 0.2 points of the characters right (docs/vision.md, Recognition)
    pbr_empty: float = 0.95
    hand: float = 0.03
    #: a place clear of the arm in the image (vision/recognize_reach.py) is read as in a
    #: frame without a hand unless the model, told of the arm where it crosses into view,
    #: gives a hand more than this: a hand's shadow falls where the hand is not, and light
    #: balls in it were read empty or stained (told 0.39-0.98 in 2600060, 0.3 or less in
    #: 9100130 2b1 through a webcam). On 510 frames with a hand and a pose, 0.3 read 1,957
    #: places right and 1 wrong, 0.2 1,557 and none, 0.1 976. It guards a hand the growth
    #: missed too: skin read as without a hand looks like an empty hollow or light wood
    #: (docs/vision.md, Limits, "A hand's shadow"). 0.3 since 2026-12-07's sixth session,
    #: when the support rules stopped reading a place the arm lies over empty (a place the
    #: hand covers was read so from a hollow below read empty: tests/test_recognize.py,
    #: seeds 202 on, the third frame's 4a1): 14-18 % more places read with a hand in view,
    #: none wrong (docs/vision.md, "Under the arm, nothing is read from below")
    hand_told: float = 0.3
    #: the least upward shading slope (per unit normal, relative to the mean) of a light ball.
    #: From 0.2: fresh 9120002 1c2, an empty hollow ringed by eight balls and uncovered by
    #: ``upper_empty``, read light wood at P(ball) 1.00 shaded up by 0.22 only (seen 45 %,
    #: lit from the side by the balls round it); 28 characters read right on the study sets
    #: went with it
    light_up: float = 0.25
    #: the least centre-minus-edge brightness (log) of a light ball
    light_centre: float = -0.5
    #: an empty reading is refused when the place is shaded like a ball: up and fit above these
    empty_up: float = 0.5
    empty_fit: float = 0.75
    #: where balls of the plate's own wood are played, an empty reading is refused in shadow
    #: (median level, log relative to the lit plate, under ``shade_level``) where the place
    #: has the plate's colour (a share of ``shade_plate`` or more): light wooden balls in a
    #: neighbour's shadow were read empty at P(empty) 1.00 on fresh frames (levels -1.0 to
    #: -1.5, the plate's colour 0.90-0.98); 123 of 5,927 empty places read right on 1,200
    #: frames fall in it. From -0.6 (it was -0.7) for one at -0.64: 8 more empty places of
    #: 1,200 frames
    shade_level: float = -0.6
    shade_plate: float = 0.8
    #: ... and deeper in shadow (under ``deep_level``), a share of ``deep_plate``: samples
    #: darker than chromaticity can be told at do not count as the plate's colour. Light
    #: wooden balls at -2.1 with the plate's colour 0.73-0.76 were read empty at P(empty)
    #: 1.00 on fresh frames; 8 of 4,346 empty places read right on 1,200 frames fall in it.
    #: Between the two levels the share asked falls in a straight line (``_plate_needed``)
    deep_level: float = -1.8
    deep_plate: float = 0.65
    #: in any game, an empty base hollow in shadow (median level under ``under_level``) with
    #: the plate's colour (a share of ``under_plate``) is unknown where a place resting on
    #: it, seen enough to be read (not glimpsed), leans to a ball at P(ball) ``under_ball`` or more
    #: (:func:`under_a_ball`): under a soft, bouncing light a white base ball (fresh 4300509,
    #: level -1.78, the plate's colour 0.71) and a light wooden one (5000075, -1.17, 0.62),
    #: each under balls at P(ball) 0.97-0.99, were read empty at P(empty) 1.00, and the
    #: balls on them emptied; and fresh 5300779 1d3 (Pylos, soft light) at level -0.59, the
    #: plate's colour 1.00, under a ball at 0.998 (from -0.8 to -0.5 on 2026-11-28). Of the
    #: empty hollows read right on the benchmark's 6,000 frames (the first 1,500 of each
    #: look) under a place at 0.95 or more with the plate's colour 0.55 or more, the darkest
    #: is at -0.41; loosened to 0.5 and 0.9 as well, it costs 8 readings right on its 3,000
    #: plain frames
    under_level: float = -0.5
    under_plate: float = 0.55
    under_ball: float = 0.95
    #: the least share of its facing surface a ball above the base must show: on the sets
    #: studied (seeds 600000, 1,200,000 and 1,300,000 on), every empty place above the base
    #: read as a ball showed 0.5 or less
    upper_share: float = 0.5
    #: a ball on the base showing less of itself than this is a sliver (:func:`slivers`):
    #: every base place read wrong on 3,000 tuning frames showed 0.28 or less
    base_share: float = 0.3
    #: ... a light wooden one, less than this: empty hollows between balls were read as
    #: light wood at 0.31 to 0.38 in view on fresh frames
    wooden_base_share: float = 0.4
    #: ... a red one behind red balls only, less than this: through webcams a black ball's
    #: sliver behind red ones takes on their red (JPEG's coarse chroma and the blur spread
    #: it two or three pixels), read red at 0.28 and 0.35 in view (2600964, 3700515); 13
    #: red balls read right on the benchmark's 6,000 frames fall below it (in view 0.21-0.39)
    red_base_share: float = 0.4
    #: ... and one behind balls read red or unknown only (one unknown at least: it may be
    #: red), less than this and over fewer than ``red_unknown_px`` pixels (its share of the
    #: ball's disc): the neighbours' red reaches 2-3 px into it. Fresh 5500799 1c4 (Sparks,
    #: 640x480, under a soft light), a black ball behind three unknown balls (two of them
    #: red) read red 40 % and 85 px in view; 57 of 5,008 red base balls read right on the
    #: benchmark's pyramid seeds (Sparks frames of the first 1,500 plain, 1,000 through
    #: webcams, under soft light, with far colours) fall below both
    red_unknown_share: float = 0.5
    red_unknown_px: float = 150.0
    #: ... and one showing less than ``wooden_seen`` of itself needs P(ball) ``wooden_ball``,
    #: as an empty hollow needs ``base_empty``: told from the plate's wood by shading alone,
    #: both ways. Empty hollows in a neighbour's shadow were read as light wood at
    #: P(ball) 0.990-0.997 with 40-66 % in view on fresh frames; 369 of the 7,716 light wooden
    #: base balls read right on three sets of 3,000 frames fall below these
    wooden_seen: float = 0.7
    wooden_ball: float = 0.998
    #: a light wooden base ball whose outline shows almost no contrast against what lies
    #: round it (median absolute log contrast across the silhouette under
    #: ``wooden_outline``), standing in a neighbour's deep shadow (the plate round its foot
    #: darker than ``wooden_shade``, log), must be shaded as a sphere is (``fit``, the
    #: share of its shading the surface normals explain, at least ``wooden_fit``): there
    #: the edges of cast shadows cross the place and shade it as a ball would be. An empty
    #: hollow so crossed, through a webcam, was read light wood at P(ball) 1.00 (fresh
    #: 4800114: outline 0.07, foot -1.36, fit 0.72). Of the 308 light wooden balls read right
    #: with so faint an outline on 4,599 Pylos frames (the benchmark's four looks and fresh
    #: 4,800,000), 10 fit under 0.9, none of them with its foot darker than -0.77
    wooden_outline: float = 0.1
    wooden_shade: float = -1.0
    wooden_fit: float = 0.9
    #: a light wooden base ball within ``wood_plate`` (log red/green and blue/green) of the
    #: plate's chromaticity is unknown where this frame's other light wooden base balls, seen
    #: ``wood_fellows`` or more, lie ``wood_apart`` or more from it (median;
    #: :func:`plate_coloured`): empty hollows ringed by balls were read as light wood at
    #: P(ball) 1.00 on fresh frames, 0.005-0.03 from the plate where their fellows were
    #: 0.16-0.41; of 8,000 light wooden base balls read right on 12,000 frames none fell in it
    wood_plate: float = 0.06
    wood_apart: float = 0.15
    #: ... and so is one within ``wood_plate`` of the plate that lies ``wood_nearer`` or more
    #: farther from its fellows' median than from the plate, wherever that median lies: an
    #: empty hollow through a webcam (fresh 5100568 1c2) was 0.02 from the plate and 0.12
    #: from its fellows, themselves only 0.10 from the plate. Of the 5,571 light wooden base
    #: balls read with fellows on the benchmark's 6,000 frames, the one that is light wood and
    #: this much nearer the plate falls in the first rule too; the nearest other, 0.027
    wood_nearer: float = 0.08
    #: ... and one farther than ``wood_plate`` from the plate is unknown where it lies this
    #: much nearer the plate's chromaticity than its fellows' median: an empty hollow ringed
    #: by balls in a room's shadow (fresh path traced 7500005 1b2) was read light wood at
    #: P(ball) 1.00, 0.24 from the plate and 0.58 from its fellows (0.33 nearer the plate).
    #: Of the 1,451 light wooden base balls read right with fellows on path traced frames
    #: (140, in five looks) and rendered ones (seeds 2,600,000 on, 80 in five looks), the
    #: most so was 0.19 nearer (docs/vision.md, Recognition)
    wood_nearer_off: float = 0.25
    #: ... ``wood_fellows`` was ``wooden_seen`` (0.7) until 2026-11-28: in fresh
    #: 5400588 an empty hollow in shadow, 0.02 from the plate, was read light wood at P(ball)
    #: 0.998 where the frame's two other light wooden base balls were 49-51 % in view (0.46
    #: and 0.48 from the plate). On the benchmark's seeds read for it (2,773 frames with a
    #: pose: the first 800 plain, through webcams and with far colours, 400 under soft light,
    #: and the mid-move row) no reading right changes with fellows seen any share at all
    wood_fellows: float = 0.4
    #: a light wooden base ball seen ``off_tint_seen`` or more whose tint lies ``off_tint``
    #: or more from its fellows' median (two or more, seen ``wood_fellows``), and
    #: ``off_tint_spread`` times as far as they lie from it, is unknown (:func:`off_tint`):
    #: empty hollows among light balls, path traced, were read light wood at P(ball)
    #: 0.94-1.00, 0.16-0.36 from their fellows, which lay within 0.04 of their median. Chosen
    #: on the path traced sets (2,296 Pylos reads in five looks): 22 -> 15 wrong (the 7
    #: readings of two such hollows), 6 light balls read right left ``?``, 64.656 -> 64.641 %
    #: of characters right (docs/vision.md, Recognition)
    off_tint: float = 0.15
    off_tint_spread: float = 4.0
    off_tint_seen: float = 0.5
    #: a base hollow read empty whose tint lies ``hollow_wood`` or more nearer the median of
    #: this frame's light wooden base balls (seen ``wooden_seen`` or more) than the plate's
    #: is unknown (:func:`wood_in_hollow`): under a soft light a light wooden ball was read
    #: empty 0.25 from the plate and 0.02 from its fellows (fresh 5300162 1c4). Of the 4,813
    #: empty hollows read right with such fellows on the benchmark's 6,000 frames, the
    #: nearest to them was 0.145 nearer them than the plate
    hollow_wood: float = 0.2
    #: ... and so is one whose tint lies ``hollow_near[0]`` or more from the plate's and
    #: within ``hollow_near[1]`` of that from the median of the frame's light wooden base
    #: balls read at any P(ball) (seen ``wooden_seen`` or more): where light wood's tint lies
    #: near the plate's, ``hollow_wood`` cannot be reached. Path traced 9220037 1d4 through
    #: a webcam under glare, a lit light wooden ball shaded flat, read empty at P(empty) 1.00
    #: 0.21 from the plate and 0.08 from its fellows; 8990013 1c1, 0.12 and 0.01. On the
    #: path traced study and fresh sets (1,805 reads) it doubts 25 empty hollows read right
    #: (19 at 0.4, which left 9220037 a margin of 0.003)
    hollow_near: tuple[float, float] = (0.1, 0.5)
    #: a base hollow read empty in shade (under ``shade_level``) whose tint lies
    #: ``hollow_white`` or more of the way from the plate's in that shade to the median of
    #: this frame's white balls (read at P(ball) ``ball``) is unknown, where theirs lies
    #: ``white_apart`` or more from that plate's (:func:`white_in_hollow`): a white base ball
    #: in an arm's soft shadow was read empty at P(empty) 1.00, 0.24 of the way (2600284 1a4).
    #: Of the 83 hollows read empty in shade with white fellows on mid-move Sparks frames
    #: (1,871 fresh ones, seeds 8,300,000 on in seven looks, and the benchmark's 451) the
    #: most leaned 0.128; measured from the lit plate's tint instead, three in a blue shadow
    #: leaned 0.18-0.21
    hollow_white: float = 0.15
    white_apart: float = 0.15
    #: where light wooden balls are played, a base hollow is read empty from P(empty)
    #: ``tinted_empty`` (not ``base_empty``) where its tint lies ``hollow_plate`` or more
    #: nearer the plate's than the median of the frame's light wooden base balls (seen
    #: ``wooden_seen`` or more), and theirs ``wood_apart`` or more from the plate's
    #: (:func:`wood_in_hollow`): such a tint is the plate's wood, not a ball's
    tinted_empty: float = 0.9
    hollow_plate: float = 0.1
    #: ... but only where the hollow's samples are no darker than ``tinted_level`` (log,
    #: relative to the lit plate): a tint tells the plate's wood from light wooden balls,
    #: not from stained ones, whose tint in shade is much the plate's (fresh path traced
    #: 7800379 1a2, 640x480: a stained base ball at -2.34 read empty at P(empty) 0.938)
    tinted_level: float = -1.5
    #: a place read empty whose median sample lies within ``clipped`` (log) of the camera's
    #: white (the level of 8-bit 255 relative to the lit plate) is unknown: a white ball the
    #: camera clips has no shading left to tell it from the plate (fresh 5400532, through a
    #: webcam: three white balls at 0.46-0.47 under a white at 0.48 read empty at P(empty)
    #: 0.99-1.00). Of the 16,371 empty places read right on those 2,773 frames, the nearest
    #: to the white was 0.079 under it
    clipped: float = 0.05
    #: a ball read red showing less than ``odd_red_seen`` of itself, darker (log level) by
    #: ``odd_red[0]`` and less red (log red/green) by ``odd_red[1]`` than the median of this
    #: frame's other balls read red, is unknown (:func:`odd_red`): a black base ball 31 % in
    #: view beside red ones, 10 px across at 640x480, was read red, 1.87 darker and 0.46 less
    #: red than the frame's red balls (fresh 4400193; under a soft light 2.06 and 0.26), and
    #: one 37 % in view in a dark frame, through a webcam, 1.59 darker and 0.19 less red
    #: (fresh 4400157). On the benchmark's 6,000 frames it doubts 5 red balls read right, and
    #: 3 readings resting on or seen through them; at 0.2 less red 4 and 3, at 0.3 3 and 2.
    #: 1.4 darker (from 1.5) takes a black base ball 40 % in view among red ones, 16 px across
    #: at 640x480, 1.43 darker and 0.38 less red (fresh 5500799 1c4), and doubts 1 more red
    #: ball read right on the benchmark's first 3,000 plain seeds and 1,000 through webcams
    #: and with far colours (1.3: 2 more)
    odd_red_seen: float = 0.5
    odd_red: tuple[float, float] = (1.4, 0.15)
    #: a ball read black lighter (log level) than the median of this frame's other balls
    #: read black by this is unknown (:func:`odd_black`): a white base ball in the shadow of
    #: the balls round it, through a webcam, was read black 2.23 lighter than the frame's five
    #: black balls (fresh 4700565). Of the 5,225 black balls read right with a fellow on the
    #: benchmark's first 1,000 seeds in each of its four looks, the lightest was 2.05 above
    #: its fellows (2600368, left ``?`` by later rules), and 99 % were under 1.2; on the
    #: plain row's other 2,000 frames it doubts one, a lit black ball 2.15 above fellows two of
    #: which stand in the pyramid's shadow (2601526)
    odd_black: float = 2.0
    #: ... and one of which less than the first is in view, lighter by the second: a white
    #: base ball 30 % in view, its sliver deep between its neighbours, was read black 1.07
    #: lighter than the frame's other black balls (2601203 1c4 through a webcam). On Sparks
    #: frames (the benchmark's seeds in six looks, path traced frames in five) it doubts 34 of
    #: the 24,430 black balls read right, as a ball of unclear colour (still a ball to the
    #: support rules), and 4 balls of other colours read black (3 left ``?`` by other rules)
    odd_black_seen: tuple[float, float] = (0.33, 1.0)
    #: a ball read black this much lighter (log level) and redder (log red/green) than the
    #: frame's darkest other black ball is unknown (:func:`odd_black`): three red balls
    #: in an arm's shadow read black were 2.63-2.79 lighter and 3.30-3.42 redder (2602795,
    #: plain, shadow and cast-drift looks). Of the 28,824 black balls read right beside
    #: another on Sparks frames (the benchmark's seeds in six looks, path traced frames in
    #: five), none reaches both: 4.67 lighter at 0.27 redder, 3.87 redder and darker, 1.89
    #: lighter at 2.07 redder, 2.41 at 1.70 (docs/vision.md)
    red_in_shade: tuple[float, float] = (2.0, 2.0)
    #: a ball above the base, of any colour, showing less of itself than this, in line with a
    #: lower ball behind it that may be of its colour, may be that ball seen through an empty
    #: place (:func:`lookalikes`): a margin over ``upper_share``, which such places reached
    upper_alone: float = 0.55
    #: a red ball above the base with a group of samples less red than the rest by this
    #: (median log red/green) is unknown (:func:`red_through`; on 3,000 frames 2 of 3,426
    #: red balls read right reached it, empty places read red 2.9 to 4.1); a group needs
    #: this many samples, and so does a ball seen through an empty place (:func:`unconfirmed`;
    #: three balls read empty on fresh frames were confirmed by one sample, and the rule
    #: costs 322 of the 64,861 readings right on the benchmark's 6,000 frames)
    through_red: float = 2.5
    through_count: int = 4
    #: an empty place above the base is confirmed by a ball the view meets through it only
    #: if that ball looks there as it does itself: median brightness (log) and chromaticity
    #: within these (:func:`unconfirmed`; a white ball seen as black through a black one
    #: differed by 2.7)
    seen_through_level: float = 2.0
    seen_through_chroma: float = 1.0
    #: nor by balls seen through it on fewer than ``through_few`` of its samples where
    #: more than ``through_veiled`` times as many would meet lower balls read unknown
    #: (:func:`unconfirmed`): what it shows there may be a ball's edge, and the rest a ball
    #: of its own. 6300175: a light wooden level-2 ball read empty was confirmed by 5
    #: samples on the stained ball beside the one under it, its own shaded foot passing
    #: for stained wood, while 33 would meet the ball under it, read unknown. The rule
    #: costs 143 readings right on 2,500 of the benchmark's frames (56 on its first 1,000
    #: plain seeds) and changes no other reading
    through_few: int = 8
    through_veiled: float = 1.0
    #: ... and on fewer than ``through_few_alike`` where one of them looks as its reading
    #: says on all the place's samples: a ball of that colour at the place would look so,
    #: and hide the rest. Fresh path traced 7600096 2c2 (through a webcam) and 7600034 2b3:
    #: stained level-2 balls read empty at P(empty) 1.00, confirmed by 8 and 14 samples on
    #: the stained ball below seen through them (their own pixels), while 31 and 25 would
    #: meet balls read unknown; 7600034's 1b3, a light wooden ball under 2b3, was read
    #: stained from 2b3's pixels, and 3a2 on it emptied. On 214 path traced frames in five
    #: looks it takes 18 wrong readings to ``?`` and costs 41 right of 19,294; on 240
    #: rendered frames in six looks, 34 of 4,644
    through_few_alike: int = 16
    #: nor may the plate between the balls below (``gap_samples`` or more of the place's
    #: samples) look coloured: chromaticity more than ``gap_chroma`` from the plate's (a red
    #: ball read empty at 3.7; on 1,000 frames no empty place was over 1.5, one over 0.5)
    gap_samples: int = 4
    gap_chroma: float = 1.5
    #: a ball above the base (not wooden) whose samples over that plate, brighter than
    #: ``unlike_dark``, lie within ``gap_plate`` of the plate's chromaticity and
    #: ``gap_fellows`` or more from the frame's other balls of its colour is unknown
    #: (:func:`plate_between`): an empty place read black (fresh 5100281 2b2) was 0.12 and
    #: 1.43; of the 4,272 balls above the base so bright there on the Sparks frames of the
    #: benchmark's first 1,000 seeds of each look, none was within 0.2 and 1.0 or more
    gap_plate: float = 0.2
    gap_fellows: float = 1.0
    #: nor may ``unlike_balls`` or more of the lower balls it would show (each met by
    #: ``through_count`` samples or more) look there unlike themselves beside it: median
    #: brightness (log) more than ``unlike_level`` apart, or chromaticity more than
    #: ``unlike_chroma`` apart where both medians are brighter than ``unlike_dark``
    #: (:func:`unlike_beside`). A black level-2 ball confirmed empty by the black ball
    #: below it (4300908) showed a white ball there 5.0 darker than beside, and a red one
    #: 2.9 less red at -3.1. One ball alone is not enough: at a boundary between two balls
    #: of other colours a pose a pixel off puts one's samples on the other: on 5,000 of the
    #: benchmark's frames one ball so met 63 empty places read right, two met 4.
    #: ``unlike_chroma`` was 1.5 until 2026-12-04's sixth session: through a webcam, a white
    #: level-3 ball over a white one was confirmed empty at P(empty) 1.00, the black top
    #: ball emptied on it, while the red balls 2c2 and 2b3 it would also show looked there
    #: 1.33 and 1.79 apart from themselves beside it (path traced 8310027 under glare). Of
    #: the 3,822 empty places above the base read right on 950 path traced frames (five
    #: looks), 1.2 doubts 2 more; of 736 reads of the benchmark's rendered frames (seeds
    #: 2,600,000 on, six looks) none changed
    unlike_balls: int = 2
    unlike_level: float = 3.0
    unlike_chroma: float = 1.2
    unlike_dark: float = -3.5
    #: a ball above the base read at P(ball) under ``upper_ball`` is unknown when
    #: ``alike_below`` or more of its samples would, with the place empty, show a lower ball
    #: of its colour or unknown, or (not red) the gap between balls (:func:`alike_below`):
    #: empty level-2 places were read as balls at 0.992-0.998 on fresh frames, 80-100 % so
    upper_ball: float = 0.999
    alike_below: float = 0.75
    #: ... unless ``unlike_under`` or more of its samples (``through_count`` at least) that
    #: would meet one lower ball read in another colour look there as the ball read does,
    #: not as that lower ball does (``seen_through_level``, ``seen_through_chroma``;
    #: :func:`_itself_over`): 1100052 2a3, a light wooden ball at P(ball) 0.97, showed itself
    #: on 13 % of its samples where the stained ball 1a4 would show. On 2,000 study frames
    #: (seeds 1,100,000 on, five looks) 202 more balls were read right and none wrong (4
    #: resting on such a ball lost theirs to the support rules), path traced 14 of 2,910
    unlike_under: float = 0.1
    #: a ball above the base is also unknown at any P(ball) when a lower ball read unknown lies
    #: right behind it (:attr:`Geometry.aligned`), ``unseen_below`` or more of its samples
    #: would show lower balls read unknown (hidden by it, most often) and no ball read rests on
    #: it: seen from 45 degrees, an empty level-2 place lies right before a base ball, whose
    #: shading is a ball's. A red one read so at P(ball) 0.9995, 98 %. Samples that would show
    #: a lower ball read by colour count too where they look as read (``shows_below``): two
    #: empty places read as balls at P(ball) 1.00 showed unknown balls on 84 and 87 %, and on
    #: their rims the black balls beside as they look
    unseen_below: float = 0.9
    #: a ball read black no darker than the plate's deepest shade round the base (the
    #: darkest 2 % of its samples, :func:`plate_shade`) less this is unknown
    #: (:func:`dark_in_shade`): a white ball in that shade, deeper still between the balls,
    #: can look as dark
    white_shade: float = 0.8
    #: a ball read dark wood no darker than that shade less this is unknown: light wooden
    #: balls whose wood was redder than the plate's were read stained at 0.10-0.38 above it
    #: (colours moved up to 25 from the defaults, the plate's up to 35); 52 of 1,327 stained
    #: balls read right on 2,000 frames (seeds 2,700,000 on) fall within it
    wood_shade: float = 0.0
    #: a ball read dark wood whose brightest tenth (log level, relative to the lit plate) is
    #: above this is unknown (:func:`dark_in_shade`): light wooden balls half in shadow were
    #: read stained with it at -0.51 (2601142 1c4 through a webcam, its orange cast reddening
    #: them) and -0.43 (fresh 5500726 1c3, through a webcam, under three level-2 balls). Of
    #: the 5,408 stained balls read right on the benchmark's first 3,000 plain seeds, 1,000
    #: through webcams and with far colours and 780 under soft light, one is above it and
    #: now ``?`` (2600429 1a1 with far colours, -0.42: its wood moved lighter, lit more
    #: squarely than the plate); the next reached -0.92, most stay under -1.1
    wood_top: float = -0.8
    #: a base ball read black whose brightest tenth is above this is unknown
    #: (:func:`dark_in_shade`): a white base ball under three level-2 balls, its top lit and
    #: the rest in their shadow, was read black at level -3.22 with it at 0.30 (fresh 8000187
    #: 1c2 through a webcam; and fresh 4700565 1b3 at -0.07, which ``odd_black`` took
    #: before). Of the 2,861 black balls read right on 2,000 frames (seeds
    #: 1,100,000 on, in five looks) and 100 path traced ones, the base balls' highest was
    #: -0.81. Above the base a black ball's highlight can fill a tenth of what shows of it
    #: (-0.39 under a soft light, 1100064 2b1), so those are left alone
    black_top: float = -0.4
    #: fewer usable body samples than this: not read
    min_samples: int = 8
    #: a position whose image the pose pins down more loosely than this (one standard
    #: deviation, as a share of the ball's radius in pixels) is not read: the samples may
    #: fall beside the ball (few, small or blurred markers; a tilt or focal length unsure)
    loose: float = 0.2
    #: ... and an empty base hollow, which empties every place above it, more tightly than
    #: this: the spread is one standard deviation, and a pose from three small markers with
    #: a guessed focal length was 1.7 times its spread off (seed 3,600,412 with far
    #: colours: two light wooden balls 0.19-0.21 of a radius off, their shading off-centre
    #: and a rim of plate among their samples, read empty at P(empty) 1.00, and four balls
    #: above them emptied with them)
    base_loose: float = 0.1

    def empty_at(self, level: int) -> float:
        """The P(empty) an empty reading needs on ``level``."""
        return self.base_empty if level == 1 else self.empty if level == 2 else self.upper_empty
