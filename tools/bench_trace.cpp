// dray-bench-trace: BVH build time and closest-hit throughput on a scene (default: the bunny).
// Rays: one primary ray per pixel and one cosine-distributed bounce from each hit, traced in
// float as the kernel's search does. Reports the median of repeated runs. Built with Embree 3
// (optional), it traces the same rays with rtcIntersect1 over the same triangles, 1 thread.
// Lines starting with "#kv" are for tools/bench.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <functional>
#include <cstdio>
#include <vector>

#include <omp.h>

#include <CLI/CLI.hpp>
#include <glm/geometric.hpp>

#include "renderer/sensors/camera.h"
#include "renderer/shapes/height_field.h"
#include "renderer/samplers/sampler.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/shape.h"
#include "tools/bench_rays.h"

#ifdef DRAY_HAVE_EMBREE
#include <embree3/rtcore.h>
#endif

using namespace dray;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_of(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median_seconds(int repeats, const std::function<void()>& f) {
  std::vector<double> secs;
  for (int i = 0; i < repeats + 1; ++i) {  // the first run warms up
    auto t0 = Clock::now();
    f();
    if (i > 0) secs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return median(secs);
}

#ifdef DRAY_HAVE_EMBREE
// The same primitives in Embree: triangles, and each quad as two triangles (what is not planar is skipped).
class EmbreeScene {
 public:
  explicit EmbreeScene(const Scene& scene) : device_(rtcNewDevice("threads=1")), scene_(rtcNewScene(device_)) {
    std::vector<glm::vec3> v;
    for (const PrimGeom& g : scene.bvh.world().prim_geoms()) {
      if (!prim_planar(g.kind)) continue;
      glm::vec3 a = to_glm(g.a), b = a + to_glm(g.b), c = a + to_glm(g.c);
      v.insert(v.end(), {a, b, c});
      if (prim_parallelogram(g.kind)) v.insert(v.end(), {b, b + to_glm(g.c), c});
    }
    RTCGeometry geom = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* vb = static_cast<float*>(rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), v.size()));
    auto* ib = static_cast<unsigned*>(rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), v.size() / 3));
    for (size_t i = 0; i < v.size(); ++i) {
      vb[3 * i] = v[i].x, vb[3 * i + 1] = v[i].y, vb[3 * i + 2] = v[i].z;
      ib[i] = unsigned(i);
    }
    rtcCommitGeometry(geom);
    rtcAttachGeometry(scene_, geom);
    rtcReleaseGeometry(geom);
    rtcCommitScene(scene_);
  }
  ~EmbreeScene() {
    rtcReleaseScene(scene_);
    rtcReleaseDevice(device_);
  }
  // Traces every ray on this thread (rtcIntersect1, or rtcOccluded1); returns the hits.
  long trace(const std::vector<Ray>& rays, bool occlusion) const {
    long h = 0;
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (const Ray& r : rays) {
      RTCRayHit rh{};
      rh.ray.org_x = r.o.x, rh.ray.org_y = r.o.y, rh.ray.org_z = r.o.z;
      rh.ray.dir_x = r.d.x, rh.ray.dir_y = r.d.y, rh.ray.dir_z = r.d.z;
      rh.ray.tnear = 0.f;
      rh.ray.tfar = r.t_max;
      rh.ray.mask = ~0u;
      rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
      if (occlusion) {
        rtcOccluded1(scene_, &ctx, &rh.ray);
        h += rh.ray.tfar < 0.f;  // Embree marks an occluded ray with tfar = -inf
      } else {
        rtcIntersect1(scene_, &ctx, &rh);
        h += rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
      }
    }
    return h;
  }

 private:
  RTCDevice device_;
  RTCScene scene_;
};
#endif

// The BVH's build over the scene's primitives, on one and two threads, and a refit after every
// primitive moved.
void bench_build(const Scene& scene, int repeats) {
  // The scene's primitives in their input order.
  const size_t prims = scene.bvh.world().prim_geoms().size();
  std::vector<PrimRef> refs(prims);
  std::vector<PrimGeom> geoms(prims);
  for (uint32_t i = 0; i < prims; ++i) {
    refs[scene.bvh.world().input_index(i)] = scene.bvh.world().prim_refs()[i];
    geoms[scene.bvh.world().input_index(i)] = scene.bvh.world().prim_geoms()[i];
  }
  Bvh bvh;
  // Builds on 1 and 2 threads alternate, so that both see the same state of this shared machine
  // (timed apart, the ratio wandered from 1.4 to 1.9 between runs); the speed-up is the median of
  // the pairs' ratios, over more pairs than the other figures take runs.
  // The build takes its arrays by value, as the scene hands them over (moved): the copies are
  // made before the clock starts.
  auto timed_build = [&](int threads) {
    std::vector<PrimRef> r = refs;
    std::vector<PrimGeom> g = geoms;
    return seconds_of([&] { bvh.build(std::move(r), std::move(g), threads); });
  };
  std::vector<double> one, two, pair_ratio;
  timed_build(2);  // warm-up
  for (int i = 0; i < 3 * repeats; ++i) {
    one.push_back(timed_build(1));
    two.push_back(timed_build(2));
    pair_ratio.push_back(one.back() / two.back());
  }
  const double b = median(one), b2 = median(two);
  std::printf("| %-28s | %10.1f ms | %zu primitives, %.2f Mprims/s, %zu nodes, %zu leaves, %d levels |\n",
              "BVH build (1 thread)", b * 1e3, prims, prims / b * 1e-6, bvh.node_count(), bvh.leaves().size(),
              bvh.depth());
  std::printf("| %-28s | %10.1f ms | %.2f Mprims/s, %.2fx one thread |\n", "BVH build (2 threads)", b2 * 1e3,
              prims / b2 * 1e-6, median(pair_ratio));
  std::printf("#kv bvh_build_mtris_per_s %.4f\n", prims / b * 1e-6);
  std::printf("#kv bvh_build_2threads_speedup %.4f\n", median(pair_ratio));
  // A refit after every primitive moved (a shear and a lift, as an optimization step moves them).
  std::vector<PrimGeom> moved = geoms;
  for (PrimGeom& g : moved) g.a = Vec3<float>(to_glm(g.a) + glm::vec3(0.01f * g.a.y, 0.01f, 0.f));
  const double rf = median_seconds(repeats, [&] { bvh.refit(refs, moved); });
  std::printf("| %-28s | %10.1f ms | %.2f Mprims/s |\n", "BVH refit (1 thread)", rf * 1e3, prims / rf * 1e-6);
  std::printf("#kv bvh_refit_mtris_per_s %.4f\n", prims / rf * 1e-6);

}

// Closest-hit and occlusion rays through the scene on one and two threads, and Embree's on the
// same rays; returns the camera rays (the height field's count).
size_t bench_rays(const Scene& scene, int repeats) {
  std::vector<Ray> shadow;
  std::vector<Ray> rays = make_rays(scene, shadow);
#ifdef DRAY_HAVE_EMBREE
  const EmbreeScene embree(scene);
#endif
  for (bool occlusion : {false, true}) {
    const std::vector<Ray>& rs = occlusion ? shadow : rays;
    const char* what = occlusion ? "occlusion" : "closest hit";
    const char* key = occlusion ? "occlusion" : "trace";
    auto trace = [&](int threads, long& hits) {
      long h = 0;
      const double secs = seconds_of([&] {
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads) reduction(+ : h)
        for (size_t k = 0; k < rs.size(); ++k) {
          Hit hit;
          h += occlusion ? scene.bvh.occluded(rs[k]) : scene.bvh.intersect(rs[k], hit);
        }
      });
      hits = h;
      return secs;
    };
    long hits = 0;
    trace(2, hits);  // warm-up
    const double two = median_seconds(repeats, [&] { trace(2, hits); });
    // One thread, alternating with Embree's run of the same rays, so that both see the same state
    // of this shared machine: the ratio is the median of the pairs' ratios.
    std::vector<double> ours, theirs, pair_ratio;
    [[maybe_unused]] long embree_hits = 0;
#ifdef DRAY_HAVE_EMBREE
    embree.trace(rs, occlusion);  // warm-up
#endif
    for (int i = 0; i < 3 * repeats; ++i) {
      ours.push_back(trace(1, hits));
#ifdef DRAY_HAVE_EMBREE
      theirs.push_back(seconds_of([&] { embree_hits = embree.trace(rs, occlusion); }));
      pair_ratio.push_back(theirs.back() / ours.back());
#endif
    }
    const double one = median(ours), mrays = [&](double s) { return double(rs.size()) / s * 1e-6; }(one);
    for (int threads : {1, 2})
      std::printf("| %-28s | %10.2f Mrays/s | %zu rays, %ld hits |\n",
                  (std::string(what) + ", " + std::to_string(threads) + " thread(s)").c_str(),
                  rs.size() / (threads == 1 ? one : two) * 1e-6, rs.size(), hits);
    std::printf("#kv %s_mrays_dray %.4f\n", key, mrays);
#ifdef DRAY_HAVE_EMBREE
    std::printf("| %-28s | %10.2f Mrays/s | %zu rays, %ld hits (Embree %d.%d) |\n",
                occlusion ? "Embree rtcOccluded1, 1 thread" : "Embree rtcIntersect1, 1 thread", rs.size() / median(theirs) * 1e-6,
                rs.size(), embree_hits, RTC_VERSION_MAJOR, RTC_VERSION_MINOR);
    std::printf("#kv %s_mrays_embree %.4f\n", key, rs.size() / median(theirs) * 1e-6);
    std::printf("#kv %s_mrays_dray_over_embree %.4f\n", key, median(pair_ratio));
#endif
  }
  return rays.size();
}

// Scale: a 708 x 708 height field of 1,002,528 triangles, `count` rays (from above, at random
// points, towards random points of the field).
void bench_height_field(size_t count, int repeats) {
  constexpr int n = 708;
  const std::vector<PrimGeom> hgeoms = height_field(n, 2.f, 0.037f, 0.023f);
  const std::vector<PrimRef> hrefs(hgeoms.size());
  Bvh field;
  auto t0 = Clock::now();
  field.build(hrefs, hgeoms);
  const double fb = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<Ray> frays;
  for (size_t k = 0; k < count; ++k) {
    Sampler s(5, k, 0);
    const glm::vec3 o(s.next() * n, 200.f, s.next() * n), to(s.next() * n, 0.f, s.next() * n);
    frays.push_back(Ray{o, glm::normalize(to - o)});
  }
  long h = 0;
  const double fs = median_seconds(repeats, [&] {
    h = 0;
    Hit hit;
    for (const Ray& r : frays) h += field.intersect(r, hit);
  });
  std::printf("| %-28s | %10.2f Mrays/s | %zu triangles (built in %.2f s, %.2f Mprims/s), %zu rays, %ld hits |\n",
              "1M triangles, 1 thread", frays.size() / fs * 1e-6, hgeoms.size(), fb, hgeoms.size() / fb * 1e-6,
              frays.size(), h);
  std::printf("#kv trace_1m_tris_mrays %.4f\n", frays.size() / fs * 1e-6);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"BVH build and trace throughput"};
  std::string scene_path = "scenes/bunny.json";
  int repeats = 5;
  app.add_option("SCENE", scene_path, "Scene file");
  app.add_option("--repeats", repeats, "Timed runs (median reported)");
  CLI11_PARSE(app, argc, argv);

  const Scene scene = load_scene(scene_path);
  bench_build(scene, repeats);
  bench_height_field(bench_rays(scene, repeats), repeats);
  return 0;
}
