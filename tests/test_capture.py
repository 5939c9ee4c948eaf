"""Frames for the camera: source: image sequences, video files, and a live camera that is
unplugged and comes back (a device cannot exist here, so the opener plays one from a video
file that disappears and reappears)."""

import shutil

import cv2
import numpy as np
import pytest

from vision.capture import Capture, CaptureError, CameraSpec, parse_camera_spec


def frames(count, shape=(120, 160)):
    return [np.full((*shape, 3), 20 * k, np.uint8) for k in range(count)]


def write_video(path, images, fps=10.0):
    h, w = images[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert out.isOpened()
    for image in images:
        out.write(image)
    out.release()


def test_specs(tmp_path):
    assert parse_camera_spec("camera:0") == CameraSpec("device", "0")
    assert parse_camera_spec("camera:rtsp://cam.local/live").kind == "stream"
    assert parse_camera_spec(f"camera:{tmp_path}").kind == "directory"
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(CaptureError, match="not a video file"):
        parse_camera_spec(f"camera:{tmp_path / 'a.txt'}")
    with pytest.raises(CaptureError, match="no such file or directory"):
        parse_camera_spec(f"camera:{tmp_path / 'missing.mp4'}")
    with pytest.raises(CaptureError, match="needs a device number"):
        parse_camera_spec("camera:")


def test_image_sequence_in_name_order_with_bad_files_reported(tmp_path):
    for k, image in enumerate(frames(3)):
        cv2.imwrite(str(tmp_path / f"f{k:03d}.png"), image)
    (tmp_path / "f001b.png").write_bytes(b"not a png")
    got = list(Capture(parse_camera_spec(f"camera:{tmp_path}"), fps=5))
    assert [f.name for f in got] == ["f000.png", "f001.png", "f001b.png", "f002.png"]
    assert [f.t for f in got] == [0.0, 0.2, 0.4, 0.6]
    assert got[2].image is None and "not an image" in got[2].error
    assert int(got[3].image.mean()) == 40
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CaptureError, match="no images"):
        list(Capture(parse_camera_spec(f"camera:{empty}")))


def test_video_file_frames_with_their_times(tmp_path):
    path = tmp_path / "game.avi"
    write_video(path, frames(6), fps=12.5)
    got = list(Capture(parse_camera_spec(f"camera:{path}")))
    assert len(got) == 6 and [f.index for f in got] == list(range(6))
    assert got[5].t == pytest.approx(5 / 12.5)
    assert abs(float(got[4].image.mean()) - 80) < 4  # MJPG is lossy


def test_a_live_camera_unplugged_and_back_is_reopened(tmp_path):
    feed = tmp_path / "feed.avi"
    spare = tmp_path / "spare.avi"
    write_video(spare, frames(3))
    opened, sleeps, now = [], [], [100.0]

    def opener(spec):
        opened.append(feed.exists())
        return cv2.VideoCapture(str(feed))

    def sleep(seconds):
        sleeps.append(seconds)
        if len(sleeps) == 3:  # plugged in again after three tries
            shutil.copy(spare, feed)
        now[0] += seconds

    def clock():
        now[0] += 0.1
        return now[0]

    shutil.copy(spare, feed)
    capture = Capture(CameraSpec("device", "0"), opener=opener, sleep=sleep, clock=clock,
                      stop=lambda: len(got) >= 6)
    got = []
    for frame in capture:
        got.append(frame)
        if len(got) == 3:
            feed.unlink()  # unplugged: the open capture runs dry, reopening fails
    assert len(got) == 6 and capture.reconnects == 1
    assert sleeps == [0.5, 1.0, 2.0]  # back-off while it is away
    assert [f.index for f in got] == list(range(6)) and all(b > a for a, b in zip([f.t for f in got], [f.t for f in got][1:]))
