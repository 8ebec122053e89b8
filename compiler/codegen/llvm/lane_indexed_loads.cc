#include "compiler/codegen/llvm/lane_indexed_loads.h"

#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PatternMatch.h>

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace tessera {
namespace codegen {
namespace {

constexpr int kLanes = 4;  // float32 lanes of a 128-bit vector
constexpr int64_t kFloatBytes = 4;

// `user` broadcasts `value` to every lane: insertelement(undef, value, 0) whose every user is a
// shufflevector with an all-zero mask.
bool IsBroadcastOf(const llvm::User* user, const llvm::Value* value) {
  using namespace llvm::PatternMatch;
  const auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(user);
  if (!insert || insert->getOperand(1) != value ||
      !match(insert, m_InsertElt(m_Undef(), m_Value(), m_ZeroInt()))) {
    return false;
  }
  for (const llvm::User* shuffle_user : insert->users()) {
    const auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(shuffle_user);
    if (!shuffle || !shuffle->isZeroEltSplat()) return false;
  }
  return !insert->user_empty();
}

// A simple float load used only by broadcasts.
bool IsBroadcastLoad(const llvm::Instruction& inst) {
  const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst);
  if (!load || !load->isSimple() || !load->getType()->isFloatTy() || load->user_empty()) {
    return false;
  }
  for (const llvm::User* user : load->users()) {
    if (!IsBroadcastOf(user, load)) return false;
  }
  return true;
}

// Byte distance from `a`'s address to `b`'s when it is a constant (loop-varying addresses too:
// SCEV subtracts the recurrences of one loop).
std::optional<int64_t> Distance(llvm::ScalarEvolution& scev, const llvm::SCEV* a,
                                const llvm::SCEV* b) {
  if (const auto* constant = llvm::dyn_cast<llvm::SCEVConstant>(scev.getMinusSCEV(b, a))) {
    return constant->getAPInt().getSExtValue();
  }
  return std::nullopt;
}

// Nothing from `first` up to `last` (same block, `first` before `last`) may write memory.
bool NoWritesBetween(llvm::Instruction* first, llvm::Instruction* last) {
  for (llvm::Instruction* i = first; i != last; i = i->getNextNode()) {
    if (i->mayWriteToMemory()) return false;
  }
  return true;
}

// Replaces the four loads of `group` (lanes 0..3, consecutive addresses) by one vector load
// placed at the earliest of them, its address computed from that load's own.
void LoadAsVector(const std::vector<llvm::LoadInst*>& group, llvm::LoadInst* first,
                  int first_lane) {
  llvm::IRBuilder<> builder(first);
  llvm::Type* element = first->getType();
  auto* vector_type = llvm::FixedVectorType::get(element, kLanes);
  const unsigned space = first->getPointerAddressSpace();
  llvm::Value* bytes =
      builder.CreateBitCast(first->getPointerOperand(), builder.getInt8PtrTy(space));
  llvm::Value* lane0 =
      builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), bytes, -first_lane * kFloatBytes);
  llvm::Value* address = builder.CreateBitCast(lane0, vector_type->getPointerTo(space));
  llvm::LoadInst* vector = builder.CreateAlignedLoad(vector_type, address, first->getAlign());
  for (int lane = 0; lane < kLanes; ++lane) {
    group[static_cast<size_t>(lane)]->replaceAllUsesWith(
        builder.CreateExtractElement(vector, builder.getInt64(lane)));
  }
  for (llvm::LoadInst* load : group) load->eraseFromParent();
}

// A broadcast load and its address.
using AddressedLoad = std::pair<llvm::LoadInst*, const llvm::SCEV*>;

// Groups of four consecutive floats among `loads`, lane 0 first.
std::vector<std::vector<llvm::LoadInst*>> ConsecutiveGroups(llvm::ScalarEvolution& scev,
                                                            std::vector<AddressedLoad> loads) {
  std::vector<std::vector<llvm::LoadInst*>> groups;
  // Loads at a constant distance from the first one left, by offset; the rest in another round.
  while (!loads.empty()) {
    std::map<int64_t, llvm::LoadInst*> by_offset;
    std::vector<AddressedLoad> rest;
    for (const AddressedLoad& load : loads) {
      if (std::optional<int64_t> d = Distance(scev, loads.front().second, load.second)) {
        by_offset.emplace(*d, load.first);  // a second load of one address stays as it is
      } else {
        rest.push_back(load);
      }
    }
    for (auto it = by_offset.begin(); it != by_offset.end();) {
      std::vector<llvm::LoadInst*> group;
      for (int lane = 0; lane < kLanes; ++lane) {
        auto next = by_offset.find(it->first + lane * kFloatBytes);
        if (next == by_offset.end()) break;
        group.push_back(next->second);
      }
      if (group.size() != static_cast<size_t>(kLanes)) {
        ++it;
        continue;
      }
      groups.push_back(group);
      it = by_offset.lower_bound(it->first + kLanes * kFloatBytes);
    }
    loads = std::move(rest);
  }
  return groups;
}

bool RewriteBlock(llvm::BasicBlock& block, llvm::ScalarEvolution& scev) {
  // Broadcast loads by the pointer they index.
  std::map<const llvm::SCEV*, std::vector<AddressedLoad>> by_base;
  for (llvm::Instruction& inst : block) {
    if (!IsBroadcastLoad(inst)) continue;
    auto* load = llvm::cast<llvm::LoadInst>(&inst);
    const llvm::SCEV* address = scev.getSCEV(load->getPointerOperand());
    by_base[scev.getPointerBase(address)].emplace_back(load, address);
  }
  bool changed = false;
  for (auto& [base, loads] : by_base) {
    if (loads.size() < static_cast<size_t>(kLanes)) continue;
    for (const std::vector<llvm::LoadInst*>& group : ConsecutiveGroups(scev, loads)) {
      size_t first_lane = 0, last_lane = 0;
      for (size_t lane = 1; lane < group.size(); ++lane) {
        if (group[lane]->comesBefore(group[first_lane])) first_lane = lane;
        if (group[last_lane]->comesBefore(group[lane])) last_lane = lane;
      }
      if (!NoWritesBetween(group[first_lane], group[last_lane])) continue;
      LoadAsVector(group, group[first_lane], static_cast<int>(first_lane));
      changed = true;
    }
  }
  return changed;
}

}  // namespace

llvm::PreservedAnalyses LaneIndexedLoadsPass::run(llvm::Function& function,
                                                  llvm::FunctionAnalysisManager& analyses) {
  llvm::ScalarEvolution& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  bool changed = false;
  for (llvm::BasicBlock& block : function) changed |= RewriteBlock(block, scev);
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

}  // namespace codegen
}  // namespace tessera
