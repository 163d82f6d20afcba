"""What the tutorial scripts share: where the tutorials' scenes are (../shared/mitsuba-tutorials/scenes
beside the checkout, or $DRAY_TUTORIAL_SCENES), their command-line sizes, and the images they write."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.environ.get("DRAY_TUTORIAL_SCENES",
                        os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "shared", "mitsuba-tutorials", "scenes")))


def arguments(doc, **defaults):
    """The script's options: each default as --NAME (the notebook's value), and --output."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    for name, value in defaults.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(value), default=value,
                            help="the notebook's %s (%s)" % (name, value))
    parser.add_argument("--output", default=".", help="folder for the images (default: the working directory)")
    args = parser.parse_args()
    if not os.path.isdir(SCENES):
        sys.exit(f"the tutorial scenes are not at {SCENES} (set DRAY_TUTORIAL_SCENES)")
    args.output = os.path.abspath(args.output)
    # The notebooks' paths ('../scenes/meshes/bunny.ply') are relative to a folder beside scenes/.
    os.chdir(SCENES)
    return args


def save(args, name, image, suffix=".png"):
    """Writes the image as OUTPUT/NAME.png (or another suffix: .exr), making the folder."""
    import dray
    os.makedirs(args.output, exist_ok=True)
    dray.write_image(os.path.join(args.output, name + suffix), image)
