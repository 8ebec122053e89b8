// An artifact parsed in place: the sections are views into the caller's bytes (a mapped file),
// so loading copies nothing it does not have to (private to deploy/).
#ifndef TESSERA_DEPLOY_ARTIFACT_VIEW_H_
#define TESSERA_DEPLOY_ARTIFACT_VIEW_H_

#include <string>
#include <string_view>
#include <vector>

#include "deploy/artifact.h"

namespace tessera {
namespace deploy {

struct ArtifactView {
  ArtifactHeader header;
  std::string_view kernels, graph, params;  // into the parsed bytes
  struct Bucket {
    std::string_view kernels, graph;
  };
  std::vector<Bucket> other_buckets;
};

// `ParseArtifact` without copying the sections; the same checks and messages.
ArtifactView ParseArtifactView(std::string_view bytes, const std::string& source);

}  // namespace deploy
}  // namespace tessera

#endif  // TESSERA_DEPLOY_ARTIFACT_VIEW_H_
