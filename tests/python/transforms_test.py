"""Mitsuba's transformation toolbox on dray (its how-to guide's cells and printed figures): a point
moves with the whole transform, a vector without its translation, a normal by the inverse
transpose; perspective and orthographic projections and their printouts; frames."""
import numpy as np
import pytest

import dray


def test_points_vectors_and_normals_as_the_guide_prints_them():
    t = dray.Transform4f().translate([0, 1, 2]) @ dray.Transform4f().scale([1, 2, 3])
    assert repr(t @ dray.Vector3f([3, 4, 5])) == "[3, 8, 15]"
    assert repr(t @ dray.Point3f([3, 4, 5])) == "[3, 9, 17]"
    assert repr(t @ dray.Normal3f([1, 0, 0])) == "[1, 0, 0]"
    s, tr = dray.Transform4f().scale(2.0), dray.Transform4f().translate([4, 0, 0])
    assert repr((tr @ s) @ dray.Point3f([1, 1, 1])) == "[6, 2, 2]"
    # A normal stays normal to a transformed plane: the plane x + y = 0 under a shear-free scale.
    m = dray.Transform4f().scale([1, 4, 1])
    tangent, normal = m @ dray.Vector3f([1, -1, 0]), m @ dray.Normal3f([1, 1, 0])
    assert float(np.dot(tangent, normal)) == pytest.approx(0.0, abs=1e-12)
    assert isinstance(dray.Point3f(1, 2, 3) + 1, dray.Point3f)


def test_projections_print_mitsubas_matrices():
    perspective = dray.ProjectiveTransform4f().perspective(fov=90, near=0.1, far=10)
    assert repr(perspective) == ("Transform[\n  matrix=[[1, 0, 0, 0],\n          [0, 1, 0, 0],\n"
                                 "          [0, 0, 1.0101, -0.10101],\n          [0, 0, 1, 0]],\n"
                                 "  inverse_transpose=[[1, 0, 0, 0],\n                     [0, 1, 0, 0],\n"
                                 "                     [0, 0, 0, -9.9],\n                     [0, 0, 1, 10]]\n]")
    # near maps to depth 0, far to 1 (the closed form of the projection).
    assert (perspective @ dray.Point3f(0, 0, 0.1))[2] == pytest.approx(0.0, abs=1e-12)
    assert (perspective @ dray.Point3f(2, -2, 10))[2] == pytest.approx(1.0)
    assert (perspective @ dray.Point3f(2, -2, 2)).tolist() == pytest.approx([1, -1, 0.959596], abs=1e-6)
    ortho = dray.Transform4f().orthographic(near=0.1, far=10)
    assert "[0, 0, 0.10101, -0.010101]" in repr(ortho) and "[0, 0, 0.1, 1]" in repr(ortho)


def test_frames():
    frame = dray.Frame3f([0, 0, 1], [0, 1, 0], [1, 0, 0])
    assert repr(frame.to_local(dray.Vector3f([3, 2, 1]))) == "[1, 2, 3]"
    assert frame.to_world(frame.to_local([0.3, -0.2, 0.9])).tolist() == pytest.approx([0.3, -0.2, 0.9])
    for n in ([0, 1, 0], [0, 0, -1], np.array([1, 2, 3]) / np.sqrt(14)):
        f = dray.Frame3f(n)  # completed around n: orthonormal and right-handed
        axes = np.array([f.s, f.t, f.n])
        np.testing.assert_allclose(axes @ axes.T, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(np.cross(f.s, f.t), f.n, atol=1e-12)
    m = dray.Transform4f().to_frame(dray.Frame3f([0, 0, 1], [0, 2, 0], [3, 0, 0])).matrix
    np.testing.assert_array_equal(m[:3, :3], [[0, 0, 3], [0, 2, 0], [1, 0, 0]])
    assert dray.Transform3f(3).matrix.tolist() == (3 * np.eye(3)).tolist()
    assert (dray.Transform3f().translate([1, 2]).rotate(90) @ [1, 0]).tolist() == pytest.approx([1, 3])
